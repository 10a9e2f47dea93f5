import type { ToolResultBlockParam } from "../model/messages.js";
import type { Usage } from "../model/models.js";
import type { Approval } from "../permissions/approval.js";
import { decide } from "../permissions/decide.js";
import { allowedNote, type DecisionNote, deniedNote } from "../permissions/decision-note.js";
import { denialText } from "../permissions/denial-text.js";
import { judgesCommands } from "../permissions/permission-list.js";
import { loadShellParser } from "../permissions/shell/parse-shell.js";
import type { DecideContext, Denial, PermissionList, ToolCall } from "../permissions/types.js";
import type { RunSandbox } from "../sandbox/run-sandbox.js";
import { settleOrAbandon } from "../shared/abort.js";
import type { BackgroundShells } from "../tools/builtin/background-shells.js";
import { realPathOf } from "../tools/real-path.js";
import { executeTool, prepareInput, type ToolRegistry } from "../tools/registry.js";
import { checkInput } from "../tools/schema-gate.js";
import type { Logger, ReadRecord, SchemaValidationMode, Tool, ToolResult } from "../tools/types.js";
import type { CallDecision, EventSink } from "./events.js";
import { type HookOutcome, type Hooks, runHooks } from "./hooks.js";
import { appendNote, errorText, resultText, toResultBlock } from "./tool-result.js";

export { notRunResult, resultText, toResultBlock } from "./tool-result.js";

/** What every call of one run is executed in. */
export interface CallContext {
  readonly registry: ToolRegistry;
  /** The run's changing state: its effective allow-list, and the meter of what it spent. */
  readonly state: RunState;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly readRecord: ReadRecord;
  readonly gateMode: SchemaValidationMode;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly runId: string;
  readonly sessionId: string;
  readonly depth: number;
  readonly emit: EventSink;
  /** The agent the run runs as, for approval prompts. */
  readonly agent?: string;
  /** The approval tier of the session; absent: every call the lists allow runs. */
  readonly approval?: CallApproval;
  /** The run's background commands; the run closes them when it ends. */
  readonly shells?: BackgroundShells;
  /**
   * Set when the run is traced: the `traceparent` of a call's span, put in the environment of the
   * processes the call starts (Bash, hooks); each call's tool_end then notes its decision's rule.
   */
  readonly traceparent?: (callId: string) => string | undefined;
}

/** A call that needs a user's consent, as a prompt shows it. */
export interface ApprovalRequest {
  readonly call: ToolCall;
  /** Why it asks: not pre-approved, a rule or a hook asks. */
  readonly reason: string;
  /** Which agent makes the call (a subagent's calls are asked for too). */
  readonly agent: string;
  readonly depth: number;
}

export type ApprovalAnswer =
  | { readonly kind: "once" }
  /** This call, and calls like it (`sessionRuleFor`), for the rest of the session. */
  | { readonly kind: "session" }
  | { readonly kind: "deny"; readonly reason?: string };

/** The session's approval tier, as the executor uses it (built by the invocation layer). */
export interface CallApproval {
  /** `approved`: the run's own pre-approving lists (its commands' and skills'). */
  check(call: ToolCall, ctx: DecideContext, approved?: readonly PermissionList[]): Approval;
  /** Asks a user; undefined when no one can be asked (`agentmd run`). */
  ask(request: ApprovalRequest): Promise<ApprovalAnswer | undefined>;
  allowForSession(call: ToolCall): void;
  /** The refusal when no one can be asked: what to write where, to allow such calls. */
  howToAllow(call: ToolCall, reason: string): string;
  /**
   * The part of `list` that runs without asking, for tools no one can be asked about because they
   * run on the API's side (WebSearch); undefined: none of it.
   */
  unasked(list: PermissionList): PermissionList | undefined;
}

/**
 * What a run carries from turn to turn. `list` is the effective allow-list: what is offered, and what
 * each call is judged by; an inline skill narrows it for the rest of the run (never widens it), and
 * adds its `hooks` to the run's. `meter` is what the run spent, its children's runs included.
 */
export interface RunState {
  list: PermissionList;
  hooks: Hooks;
  readonly meter: { usage: Usage; costUsd: number; costUnknown?: true };
  /**
   * Bumped when the tools a request shows change while the list does not (ToolSearch revealed
   * deferred tools); the loop then asks `offer` again. Absent: never changes.
   */
  offerVersion?: number;
  /**
   * Set when the run's commands run inside the OS sandbox. Each call gets the sandbox of
   * the list in force at that call; an inline skill may turn it on for the rest of the run, and
   * nothing turns it off.
   */
  sandbox?: RunSandbox;
  /** Lists whose calls need no user's approval in this run (its commands' and skills' own). */
  approved?: readonly PermissionList[];
}

export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** The input as the model sent it, when it was not one complete JSON object: never executed. */
  readonly invalidInput?: string;
}

export interface CallOutcome {
  readonly block: ToolResultBlockParam;
  readonly decision: CallDecision;
  readonly result: ToolResult;
}

export const INTERRUPTED =
  "Interrupted: the run was aborted before this call finished. The tool was not executed.";

/**
 * One call, start to finish: look up the tool (a Map) → normalise its input → permission decision
 * → schema gate → pre-tool hooks → execute → post-tool hooks → exactly one tool_result. Every
 * failure the model should see is a result, never a throw. Contract: never rejects.
 */
export async function executeCall(use: ToolUse, cx: CallContext): Promise<CallOutcome> {
  const started = performance.now();
  const base = { runId: cx.runId, depth: cx.depth };
  cx.emit({ ...base, type: "tool_start", id: use.id, name: use.name, input: use.input });
  let decision: CallDecision;
  let result: ToolResult;
  const trail: Trail = {};
  try {
    ({ decision, result } = await settle(use, traced(cx, use.id), trail));
  } catch (e) {
    // What threw is ours or a rule's, a hook's, a gate's (a tool's own throw is a result): the call
    // is answered as failed, and recorded as such, never as allowed.
    ({ decision, result } = refuse("error", `${use.name} could not be run: ${errorText(e)}`));
  }
  const text = resultText(result);
  cx.emit({
    ...base,
    type: "tool_end",
    id: use.id,
    name: use.name,
    decision,
    isError: result.isError,
    content: text,
    ms: performance.now() - started,
    ...(cx.traceparent && trail.note && { permission: trail.note }),
  });
  return { block: toResultBlock(use.id, result), decision, result };
}

type Settled = { decision: CallDecision; result: ToolResult };
const refuse = (decision: CallDecision, content: string): Settled => ({
  decision,
  result: { content, isError: true },
});

/** What a traced call's decision note is made of, as the call goes (`permission` on its tool_end). */
interface Trail {
  note?: DecisionNote;
}

/** A traced call's context: its processes get the call's `traceparent` in their environment. */
function traced(cx: CallContext, callId: string): CallContext {
  const traceparent = cx.traceparent?.(callId);
  return traceparent ? { ...cx, env: { ...(cx.env ?? process.env), TRACEPARENT: traceparent } } : cx;
}

async function settle(use: ToolUse, cx: CallContext, trail: Trail): Promise<Settled> {
  const admitted = await admit(use, cx, trail);
  if ("decision" in admitted) return admitted;
  const { tool, input } = admitted;
  if (cx.traceparent) trail.note = await noteAllowed(tool, input, cx);
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  const payload = {
    tool_name: tool.name,
    tool_input: input,
    run_id: cx.runId,
    session_id: cx.sessionId,
    cwd: cx.cwd,
  };
  const hookCtx = { logger: cx.logger, signal: cx.signal, ...(cx.env && { env: cx.env }) };
  const pre = await runHooks(
    cx.state.hooks.PreToolUse,
    { ...payload, hook_event_name: "PreToolUse" },
    hookCtx,
  );
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  if (pre.kind === "block") return refuse("blocked-by-hook", `Blocked by a PreToolUse hook: ${pre.message}`);
  const consent = await consentTo(tool, input, cx, pre, trail);
  if (consent) return consent;
  // Nothing is awaited from here to the tool's start: it never starts with its signal aborted.
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  const running = executeTool(tool, input, {
    cwd: cx.cwd,
    signal: cx.signal,
    logger: cx.logger,
    readRecord: cx.readRecord,
    ...(cx.env && { env: cx.env }),
    ...(tool.permission?.kind === "path" && { mayAccess: accessJudge(cx, tool.name, tool.permission.field) }),
    ...(cx.state.sandbox && { sandbox: cx.state.sandbox.forCall(cx.state.list) }),
    ...(cx.shells && { shells: cx.shells }),
    callId: use.id,
    report: (event) => cx.emit({ runId: cx.runId, depth: cx.depth, ...event }),
  });
  const result = await abandonAfterAbort(tool, running, cx.signal);
  if (result === ABANDONED) return { decision: "interrupted", result };
  const post = await runHooks(
    cx.state.hooks.PostToolUse,
    {
      ...payload,
      hook_event_name: "PostToolUse",
      tool_response: { content: resultText(result), is_error: result.isError },
    },
    hookCtx,
  );
  if (post.kind === "block")
    return { decision: "allowed", result: appendNote(result, `PostToolUse hook: ${post.message}`) };
  return { decision: cx.signal.aborted && result.isError ? "interrupted" : "allowed", result };
}

export const ABANDON_GRACE_MS = 1_000;
const ABANDONED: ToolResult = {
  content: `Interrupted: the run was aborted and this call did not stop within ${ABANDON_GRACE_MS / 1000} s, so it was abandoned; what it did before is unknown.`,
  isError: true,
};

/**
 * A call that has not settled `ABANDON_GRACE_MS` after the run's abort (a tool that ignores its
 * signal) is answered without it: a Ctrl-C is never held by a tool. A call that runs child runs is
 * waited for: those runs end themselves on the abort, their own calls abandoned in turn.
 */
function abandonAfterAbort(
  tool: Tool,
  running: Promise<ToolResult>,
  signal: AbortSignal,
): Promise<ToolResult> {
  if (tool.spawnsRuns) return running;
  return settleOrAbandon(running, signal, ABANDON_GRACE_MS, () => ABANDONED);
}

/** The tool and its checked input, or why the call goes no further: unknown, denied, or invalid input. */
async function admit(
  use: ToolUse,
  cx: CallContext,
  trail: Trail,
): Promise<Settled | { tool: Tool; input: Readonly<Record<string, unknown>> }> {
  const a = await admitCall(use, cx);
  if (a.kind === "denied") {
    if (cx.traceparent) trail.note = deniedNote(a.denial, cx.cwd, cx.state.list);
    return refuse("denied", denialText(a.denial));
  }
  if (a.kind === "invalid") return { decision: "invalid", result: a.result };
  return a;
}

/** The executor's judgement of a call before it runs (hooks and approval aside). */
export type Admission =
  | { readonly kind: "admitted"; readonly tool: Tool; readonly input: Readonly<Record<string, unknown>> }
  | { readonly kind: "denied"; readonly denial: Denial }
  | { readonly kind: "invalid"; readonly result: ToolResult };

/** What `admitCall` reads of a run: its tools, its list, its working folder and gate. */
export type AdmitContext = Pick<CallContext, "registry" | "cwd" | "logger" | "gateMode"> & {
  readonly state: Pick<RunState, "list">;
};

/**
 * A call judged as the executor judges it, without running it: look up the tool → normalise its
 * input (keys restored) → permission decision → schema gate. `agentmd tools --try` asks this too,
 * so that it can never disagree with a run. Contract: never rejects.
 */
export async function admitCall(use: ToolUse, cx: AdmitContext): Promise<Admission> {
  if (use.invalidInput !== undefined) {
    const shown = use.invalidInput === "" ? "nothing" : `'${use.invalidInput}'`;
    return invalid(
      `The input of this ${use.name} call is not complete JSON (got ${shown}), so it was not executed. Send the call again with its input as one JSON object.`,
    );
  }
  const registered = cx.registry.get(use.name);
  if (!registered) {
    const d = decide(cx.state.list, { tool: use.name, input: use.input }, judgeContext(cx));
    return {
      kind: "denied",
      denial: d.kind === "denied" ? d : { kind: "denied", reason: "not-offered", tool: use.name },
    };
  }
  const tool = registered.tool;
  // A command line is judged by the shell parser, loaded once (its first use waits for it).
  const shell =
    tool.permission?.kind === "command" && judgesCommands(cx.state.list, cx.registry.specs)
      ? await loadShellParser()
      : undefined;
  const prepared = prepareInput(registered, use.input);
  if (!prepared.ok) return { kind: "invalid", result: prepared.result };
  const d = decide(cx.state.list, { tool: tool.name, input: prepared.input }, { ...judgeContext(cx), shell });
  if (d.kind === "denied") {
    // An input the schema refuses (a misspelled key, say) is told as such: neither runs, and the
    // model learns what to fix rather than that the call could not be judged.
    if (d.reason === "cannot-judge") {
      const gate = checkInput(tool, prepared.input, "enforce", cx.logger);
      if (!gate.ok) return invalid(gate.message);
    }
    return { kind: "denied", denial: d };
  }
  const gate = checkInput(tool, prepared.input, cx.gateMode, cx.logger);
  if (!gate.ok) return invalid(gate.message);
  return { kind: "admitted", tool, input: gate.input };
}

const invalid = (content: string): Admission => ({ kind: "invalid", result: { content, isError: true } });

/**
 * A user's consent, where the call needs it: the approval tier asks (not pre-approved, or a rule
 * or a hook asks), and someone answers; with no one to ask, the call is denied with how to allow
 * it. Undefined: the call may run.
 */
async function consentTo(
  tool: Tool,
  input: Readonly<Record<string, unknown>>,
  cx: CallContext,
  pre: HookOutcome,
  trail: Trail,
): Promise<Settled | undefined> {
  const approval = cx.approval;
  if (!approval) return undefined;
  // The approval rules judge a command line as the lists do: with the parser.
  const shell = tool.permission?.kind === "command" ? await loadShellParser() : undefined;
  const call = { tool: tool.name, input };
  const verdict = approval.check(call, { ...judgeContext(cx), shell }, cx.state.approved);
  // A mode's refusal (plan) stands whatever a hook says; a hook's `allow` is a user's approval.
  if (verdict.kind === "denied") {
    trail.note = { verdict: "denied", reason: "approval" };
    return refuse("denied", verdict.message);
  }
  if (pre.kind === "allow") return undefined;
  if (verdict.kind === "allowed" && pre.kind !== "ask") return undefined;
  const reason =
    pre.kind === "ask"
      ? `a PreToolUse hook asks: ${pre.message}`
      : verdict.kind === "ask"
        ? verdict.reason
        : "";
  // An approval no one gives never holds an aborted run; an asker that fails is no answer.
  const asked = approval
    .ask({ call, reason, agent: cx.agent ?? "main", depth: cx.depth })
    .catch(() => undefined);
  const answer = await settleOrAbandon(asked, cx.signal, 0, () => undefined);
  trail.note = { ...trail.note, verdict: "asked", asked: { reason, answer: answer?.kind ?? "none" } };
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  if (answer === undefined) return refuse("denied", approval.howToAllow(call, reason));
  if (answer.kind === "deny")
    return refuse(
      "denied",
      `A user denied this ${tool.name} call${answer.reason ? `: ${answer.reason}` : ""}. The tool was not executed.`,
    );
  if (answer.kind === "session") approval.allowForSession(call);
  return undefined;
}

/** The rule that allowed an admitted call (judged again, rule by rule: traced runs only). */
async function noteAllowed(
  tool: Tool,
  input: Readonly<Record<string, unknown>>,
  cx: CallContext,
): Promise<DecisionNote> {
  const shell = tool.permission?.kind === "command" ? await loadShellParser() : undefined;
  return allowedNote(cx.state.list, { tool: tool.name, input }, { ...judgeContext(cx), shell });
}

const judgeContext = (cx: Pick<CallContext, "registry" | "cwd">): DecideContext => ({
  specs: cx.registry.specs,
  cwd: cx.cwd,
  realPath: realPathOf,
});

/** The paths a call may touch beyond the one it names: judged as that tool's call on each, as it stands now. */
function accessJudge(cx: CallContext, tool: string, field: string): (file: string) => boolean {
  const judged = { specs: cx.registry.specs, cwd: cx.cwd, realPath: realPathOf };
  const list = cx.state.list;
  return (file) => decide(list, { tool, input: { [field]: file } }, judged).kind === "allowed";
}
