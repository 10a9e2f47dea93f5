import { decide } from "../permissions/decide.js";
import { allowedNote, type DecisionNote, deniedNote } from "../permissions/decision-note.js";
import { denialText } from "../permissions/denial-text.js";
import { judgesCommands } from "../permissions/permission-list.js";
import { loadShellParser } from "../permissions/shell/parse-shell.js";
import type { DecideContext, Denial } from "../permissions/types.js";
import { settleOrAbandon } from "../shared/abort.js";
import { readTextOf } from "../tools/read-text.js";
import { realPathOf } from "../tools/real-path.js";
import { executeTool, prepareInput } from "../tools/registry.js";
import { checkInput } from "../tools/schema-gate.js";
import type { SandboxStart, Tool, ToolResult } from "../tools/types.js";
import { checkpointCall } from "./checkpoints.js";
import type { CallDecision } from "./events.js";
import { type Fired, fireHooks, hookContext } from "./hooks.js";
import { appendNote, resultText, toResultBlock } from "./tool-results.js";

export type {
  ApprovalAnswer,
  ApprovalRequest,
  CallApproval,
  CallContext,
  CallOutcome,
  RunState,
  ToolUse,
} from "./call-types.js";
export { hookContext } from "./hooks.js";
export { notRunResult, resultText, toResultBlock } from "./tool-results.js";

import type { CallContext, CallOutcome, RunState, ToolUse } from "./call-types.js";

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
    // How long the call took, less the time a user took to answer its approval question.
    ms: performance.now() - started - (trail.waitedMs ?? 0),
    ...(trail.note && { permission: trail.note }),
  });
  return { block: toResultBlock(use.id, result), decision, result };
}

type Settled = { decision: CallDecision; result: ToolResult };
const refuse = (decision: CallDecision, content: string): Settled => ({
  decision,
  result: { content, isError: true },
});

/** What a call's decision note is made of, as the call goes (`permission` on its tool_end). */
interface Trail {
  note?: DecisionNote;
  /** How long the call waited for a user's answer (not part of its duration). */
  waitedMs?: number;
}

/** A traced call's context: its processes get the call's `traceparent` in their environment. */
function traced(cx: CallContext, callId: string): CallContext {
  const traceparent = cx.traceparent?.(callId);
  return traceparent ? { ...cx, env: { ...(cx.env ?? process.env), TRACEPARENT: traceparent } } : cx;
}

/** A traced call's sandbox says each command's start (its span); an untraced one, nothing. */
function sandboxTrace(cx: CallContext, id: string): ((start: SandboxStart) => void) | undefined {
  if (!cx.traceparent) return undefined;
  return (start) => cx.emit({ runId: cx.runId, depth: cx.depth, type: "sandbox", id, ...start });
}

async function settle(use: ToolUse, cx: CallContext, trail: Trail): Promise<Settled> {
  const admitted = await admit(use, cx, trail);
  if ("decision" in admitted) return admitted;
  const { tool } = admitted;
  trail.note = await noteAllowed(tool, admitted.input, cx);
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  const hooks = hookContext(cx);
  const call = { tool_name: tool.name, tool_use_id: use.id };
  const pre = await fireHooks(cx.state.hooks, "PreToolUse", { ...call, tool_input: admitted.input }, hooks);
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  if (pre.kind === "failed")
    return refuse(
      "blocked-by-hook",
      `Blocked by a PreToolUse hook: ${pre.reason}; a PreToolUse hook that fails blocks the call`,
    );
  if (pre.kind === "block" || pre.kind === "halt")
    return refuse("blocked-by-hook", `Blocked by a PreToolUse hook: ${pre.reason}`);
  const updated = "updatedInput" in pre ? pre.updatedInput : undefined;
  const rewritten = updated ? await rewrite(use, updated, cx) : admitted;
  if ("decision" in rewritten) return rewritten;
  // A call that would fail (an Edit of a file not read) fails before anyone is asked to approve it.
  const unmet = await tool.precheck?.(rewritten.input, { cwd: cx.cwd, readRecord: cx.readRecord });
  if (unmet !== undefined) return refuse("allowed", unmet);
  const consent = await consentTo(tool, rewritten.input, cx, pre, { callId: use.id, trail });
  if (consent && "decision" in consent) return consent;
  const again = consent ? await rejudge(use, consent.changed, cx, trail) : rewritten;
  if ("decision" in again) return again;
  const { input } = again;
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  // The transcript holds that the call starts before it does (a run cut off before this point is
  // resumed by running the call; after it, the call may have run).
  cx.emit({ runId: cx.runId, depth: cx.depth, type: "tool_run", id: use.id, name: tool.name });
  await cx.writeAhead?.();
  // Nothing is awaited from here to the tool's start: it never starts with its signal aborted.
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  // A file an editing call changes is kept first, for the turn's checkpoint (`/rewind`).
  const kept = checkpointCall(cx.checkpoint, tool.name, input, cx.cwd);
  const running = executeTool(tool, input, {
    cwd: cx.cwd,
    signal: cx.signal,
    logger: cx.logger,
    readRecord: cx.readRecord,
    ...(cx.env && { env: cx.env }),
    ...(tool.permission?.kind === "path" && { mayAccess: accessJudge(cx, tool.name, tool.permission.field) }),
    ...(cx.state.sandbox && { sandbox: cx.state.sandbox.forCall(cx.state.list, sandboxTrace(cx, use.id)) }),
    ...(cx.shells && { shells: cx.shells }),
    callId: use.id,
    report: (event) => cx.emit({ runId: cx.runId, depth: cx.depth, ...event }),
  });
  const result = await abandonAfterAbort(tool, running, cx.signal);
  kept?.after();
  if (result === ABANDONED) return { decision: "interrupted", result };
  const response = { content: resultText(result), is_error: result.isError };
  const post = await fireHooks(
    cx.state.hooks,
    "PostToolUse",
    { ...call, tool_input: input, tool_response: response },
    hooks,
  );
  const notes = [
    ...(post.kind === "block" || post.kind === "halt" ? [`PostToolUse hook: ${post.reason}`] : []),
    ...post.context.map((c) => `PostToolUse hook context: ${c}`),
  ];
  const noted = notes.reduce(appendNote, result);
  return { decision: cx.signal.aborted && result.isError ? "interrupted" : "allowed", result: noted };
}

/**
 * A PreToolUse hook's `updatedInput`, judged again as the model's own call would be: the lists and
 * the schema gate. A rewrite to what the lists deny is denied; a hook narrows, never widens.
 */
async function rewrite(
  use: ToolUse,
  updated: Readonly<Record<string, unknown>>,
  cx: CallContext,
): Promise<Settled | { tool: Tool; input: Readonly<Record<string, unknown>> }> {
  const a = await admitCall({ id: use.id, name: use.name, input: updated }, cx);
  if (a.kind === "denied")
    return refuse(
      "denied",
      `A PreToolUse hook rewrote this call to one the allow-lists deny. ${denialText(a.denial)}`,
    );
  if (a.kind === "invalid")
    return refuse(
      "invalid",
      `A PreToolUse hook rewrote this call's input to one that is not valid: ${resultText(a.result)}`,
    );
  return a;
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
    trail.note = deniedNote(a.denial, cx.cwd, cx.state.list);
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
  pre: Fired,
  at: { readonly callId: string; readonly trail: Trail },
): Promise<Settled | { changed: Readonly<Record<string, unknown>> } | undefined> {
  const approval = cx.approval;
  if (!approval) return undefined;
  // The approval rules judge a command line as the lists do: with the parser.
  const shell = tool.permission?.kind === "command" ? await loadShellParser() : undefined;
  const call = { tool: tool.name, input };
  const verdict = approval.check(call, { ...judgeContext(cx), shell }, cx.state.approved, cx.state.list);
  // A mode's refusal (plan) stands whatever a hook says; a hook's `allow` is a user's approval.
  if (verdict.kind === "denied") {
    at.trail.note = { verdict: "denied", reason: "approval" };
    return refuse("denied", verdict.message);
  }
  if (pre.kind === "allow") return undefined;
  if (verdict.kind === "allowed" && pre.kind !== "ask") return undefined;
  const reason =
    pre.kind === "ask"
      ? `a PreToolUse hook asks: ${pre.reason}`
      : verdict.kind === "ask"
        ? verdict.reason
        : "";
  await fireHooks(
    cx.state.hooks,
    "Notification",
    { message: `agentmd needs your permission to use ${tool.name}`, notification_type: "permission_prompt" },
    hookContext(cx),
  );
  // An approval no one gives never holds an aborted run; an asker that fails is no answer.
  const askedAt = performance.now();
  const asked = approval
    .ask({ call, reason, agent: cx.agent ?? "main", depth: cx.depth, callId: at.callId })
    .catch(() => undefined);
  const answer = await settleOrAbandon(asked, cx.signal, 0, () => undefined);
  at.trail.waitedMs = (at.trail.waitedMs ?? 0) + performance.now() - askedAt;
  at.trail.note = { ...at.trail.note, verdict: "asked", asked: { reason, answer: answer?.kind ?? "none" } };
  if (cx.signal.aborted) return refuse("interrupted", INTERRUPTED);
  if (answer === undefined) return refuse("denied", approval.howToAllow(call, reason));
  if (answer.kind === "deny")
    return refuse(
      "denied",
      `A user denied this ${tool.name} call${answer.reason ? `: ${answer.reason}` : ""}. The tool was not executed.`,
    );
  if (answer.kind === "session") approval.allowForSession(call, { ...judgeContext(cx), shell });
  if (answer.kind === "once" && answer.input !== undefined) return { changed: answer.input };
  return undefined;
}

/**
 * A call whose input the approver changed is a new call: the lists, the PreToolUse hooks and the
 * approval tier's refusals (plan mode) judge it again, so that an approver can narrow a call but
 * never make it one the lists deny.
 */
async function rejudge(
  use: ToolUse,
  changed: Readonly<Record<string, unknown>>,
  cx: CallContext,
  trail: Trail,
): Promise<Settled | { input: Readonly<Record<string, unknown>> }> {
  const again = await admit({ id: use.id, name: use.name, input: changed }, cx, trail);
  if ("decision" in again) return again;
  const call = { tool_name: again.tool.name, tool_use_id: use.id, tool_input: again.input };
  const pre = await fireHooks(cx.state.hooks, "PreToolUse", call, hookContext(cx));
  if (pre.kind === "failed" || pre.kind === "block" || pre.kind === "halt")
    return refuse("blocked-by-hook", `Blocked by a PreToolUse hook: ${pre.reason}`);
  // A second rewrite of a call the approver already changed is not taken: the call is refused.
  if ("updatedInput" in pre && pre.updatedInput)
    return refuse(
      "blocked-by-hook",
      "A PreToolUse hook rewrote a call its approver had changed; it was not run",
    );
  const shell = again.tool.permission?.kind === "command" ? await loadShellParser() : undefined;
  const verdict = cx.approval?.check(
    { tool: again.tool.name, input: again.input },
    { ...judgeContext(cx), shell },
    cx.state.approved,
    cx.state.list,
  );
  if (verdict?.kind === "denied") return refuse("denied", verdict.message);
  return { input: again.input };
}

/** The rule that allowed an admitted call (judged again, rule by rule), for its transcript and trace. */
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
  readFile: readTextOf,
});

/** The paths a call may touch beyond the one it names: judged as that tool's call on each, as it stands now. */
function accessJudge(cx: CallContext, tool: string, field: string): (file: string) => boolean {
  const judged = { specs: cx.registry.specs, cwd: cx.cwd, realPath: realPathOf };
  const list = cx.state.list;
  return (file) => decide(list, { tool, input: { [field]: file } }, judged).kind === "allowed";
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
