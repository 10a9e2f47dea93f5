import { HOOK_EVENTS } from "../definitions/hook-events.js";
import { TOOL_ALIASES } from "../permissions/tool-matcher.js";
import type { EventSink, HookOutcome } from "./events.js";
import { type Answer, runCommandHook, runFunctionHook } from "./hook-run.js";
import { hookTrace } from "./hook-trace.js";
import type {
  Fired,
  Hook,
  HookContext,
  HookElicitAnswer,
  HookEvent,
  HookPayload,
  HookSpan,
  Hooks,
} from "./hook-types.js";

export type {
  CommandHook,
  ElicitAction,
  Fired,
  FunctionHook,
  Hook,
  HookContext,
  HookElicitAnswer,
  HookEvent,
  HookOrigin,
  HookPayload,
  HookReply,
  HookSession,
  Hooks,
  HookTrace,
} from "./hook-types.js";

/**
 * The hook dispatcher: the one place any hook runs, for every event and every hop. Its interface,
 * whole:
 *
 * - a hook source is a `Hooks` value, each event a list of `Hook`s: a `CommandHook` (settings,
 *   agent.md, subagents, skills, plugins: a shell command given the payload as JSON on stdin) or a
 *   `FunctionHook` (the library's and the Agent SDK's callbacks: called in-process); each may say
 *   its `origin`. Sources join with `mergeHooks`, in the order they run.
 * - `fireHooks(hooks, event, fields, ctx)` runs the event's matching hooks in order with the
 *   payload (the fields every event has, from `ctx.session`, and the event's own `fields`), and
 *   returns what they decided together (`Fired`). Contract: never rejects.
 *
 * A hook narrows, never widens: what it answers is a request its caller judges again (an `allow`
 * or an `updatedInput` goes back to the lists). A blocking event (all but SessionEnd and
 * Notification) whose hook fails, times out, is withheld or is stopped by the run's abort is
 * `failed`: its caller fails closed. A non-blocking event's failure is said on `ctx.warn` and the
 * hooks after it run.
 */
export async function fireHooks(
  hooks: Hooks | undefined,
  event: HookEvent,
  fields: Partial<HookPayload>,
  ctx: HookContext,
): Promise<Fired> {
  const blocking = !NON_BLOCKING.has(event);
  const context: string[] = [];
  let payload = payloadOf(event, fields, ctx);
  let allowed = false;
  let updatedInput: Readonly<Record<string, unknown>> | undefined;
  let elicitation: HookElicitAnswer | undefined;
  for (const hook of hooks?.[event] ?? []) {
    if (!matches(hook.matcher, subjectOf(payload))) continue;
    // A hook that may not run (its folder is not trusted) refuses what it would have judged.
    if ("withheld" in hook && hook.withheld !== undefined) {
      spanOf(hook, payload, ctx)?.end({ outcome: "withheld", reason: hook.withheld });
      if (blocking) return { kind: "block", reason: hook.withheld, context };
      continue;
    }
    const answer = await runOne(hook, payload, ctx);
    if (ctx.signal.aborted)
      return blocking ? { kind: "failed", reason: "interrupted: the run was aborted", context } : go(false);
    if (answer.context) context.push(answer.context);
    if (answer.failed !== undefined) {
      if (blocking && !AFTER_THE_FACT.has(event)) return { kind: "failed", reason: answer.failed, context };
      ctx.warn(`${event} ${answer.failed}`);
      continue;
    }
    if (answer.halt) return { kind: "halt", reason: answer.reason ?? "", context };
    if (answer.decision === "block") {
      if (blocking) return { kind: "block", reason: answer.reason ?? `blocked by a ${event} hook`, context };
      ctx.warn(`${event} hook: ${answer.reason}`);
      continue;
    }
    if (answer.decision === "ask" && event === "PreToolUse")
      return { kind: "ask", reason: answer.reason ?? "", context };
    // An approval does not stop the hooks after it: any of them may still block.
    if (answer.decision === "allow") allowed = true;
    if (answer.updatedInput && event === "PreToolUse") {
      updatedInput = answer.updatedInput;
      payload = { ...payload, tool_input: updatedInput };
    }
    // Elicitation: the first answer stands; ElicitationResult: each replaces the answer the next sees.
    if (answer.elicitation && event === "Elicitation") elicitation ??= answer.elicitation;
    if (answer.elicitation && event === "ElicitationResult") {
      elicitation = replaced(payload, answer.elicitation);
      payload = { ...withoutContent(payload), ...elicitation };
    }
  }
  return go(allowed && event === "PreToolUse");

  function go(allow: boolean): Fired {
    return {
      kind: allow ? "allow" : "continue",
      context,
      ...(updatedInput && { updatedInput }),
      ...(elicitation && { elicitation }),
    };
  }
}

/** An ElicitationResult hook's answer over the one it was given: an accept keeps the content it omits. */
function replaced(p: HookPayload, a: HookElicitAnswer): HookElicitAnswer {
  if (a.action !== "accept") return { action: a.action };
  const content = a.content ?? p.content;
  return content ? { action: "accept", content } : { action: "accept" };
}

function withoutContent(p: HookPayload): HookPayload {
  const { content: _content, ...rest } = p;
  return rest;
}

/** The events whose hooks can stop nothing: a failure is said, and the run goes on. */
const NON_BLOCKING: ReadonlySet<HookEvent> = new Set(["SessionEnd", "Notification"]);
/** A PostToolUse hook comes after the call ran: its block is a note, its failure a warning. */
const AFTER_THE_FACT: ReadonlySet<HookEvent> = new Set(["PostToolUse"]);

function payloadOf(event: HookEvent, fields: Partial<HookPayload>, ctx: HookContext): HookPayload {
  const s = ctx.session;
  return {
    session_id: s.sessionId,
    transcript_path: s.transcriptPath ?? "",
    cwd: s.cwd,
    permission_mode: s.permissionMode,
    run_id: s.runId,
    ...fields,
    hook_event_name: event,
  };
}

/** One hook run; traced, in its own span, its process given that span's `TRACEPARENT`. */
async function runOne(hook: Hook, payload: HookPayload, ctx: HookContext): Promise<Answer> {
  const span = spanOf(hook, payload, ctx);
  const env = span?.traceparent ? { ...(ctx.env ?? process.env), TRACEPARENT: span.traceparent } : ctx.env;
  const cx = { signal: ctx.signal, ...(env && { env }) };
  const answer = await ("run" in hook
    ? runFunctionHook(hook, payload, cx)
    : runCommandHook(hook, payload, cx));
  span?.end({
    outcome: outcomeOf(answer),
    ...((answer.failed ?? answer.reason) !== undefined && { reason: answer.failed ?? answer.reason }),
    ...(answer.exitCode !== undefined && { exitCode: answer.exitCode }),
  });
  return answer;
}

function spanOf(hook: Hook, p: HookPayload, ctx: HookContext): HookSpan | undefined {
  return ctx.trace?.start({
    event: p.hook_event_name,
    ...("command" in hook && { command: hook.command }),
    ...(hook.origin !== undefined && { origin: hook.origin }),
    ...(hook.matcher !== undefined && { matcher: hook.matcher }),
    ...(p.tool_use_id !== undefined && { callId: p.tool_use_id }),
  });
}

function outcomeOf(a: Answer): HookOutcome {
  if (a.failed !== undefined) return "failed";
  if (a.halt) return "halt";
  return a.decision ?? "continue";
}

/** What a matcher is matched against, by event (Claude Code's): UserPromptSubmit and Stop have none. */
function subjectOf(p: HookPayload): readonly string[] | undefined {
  const one = (x: string | undefined) => (x === undefined ? undefined : [x]);
  switch (p.hook_event_name) {
    case "PreToolUse":
    case "PostToolUse":
      return p.tool_name === undefined ? undefined : [p.tool_name, ...(ALIASES_OF.get(p.tool_name) ?? [])];
    case "SessionStart":
      return one(p.source);
    case "SessionEnd":
      return one(p.reason);
    case "PreCompact":
      return one(p.trigger);
    case "SubagentStart":
    case "SubagentStop":
      return one(p.agent_type);
    case "Notification":
      return one(p.notification_type);
    case "Elicitation":
    case "ElicitationResult":
      return one(p.mcp_server_name);
    default:
      return undefined;
  }
}

const ALIASES_OF = new Map<string, string[]>();
for (const [alias, tool] of Object.entries(TOOL_ALIASES))
  ALIASES_OF.set(tool, [...(ALIASES_OF.get(tool) ?? []), alias]);

function matches(matcher: string | undefined, names: readonly string[] | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*" || matcher === ".*") return true;
  if (names === undefined) return true;
  try {
    const re = new RegExp(`^(?:${matcher})$`);
    return names.some((n) => re.test(n));
  } catch {
    return names.includes(matcher);
  }
}

/** What `hookContext` reads of a run's call context. */
export interface HookRun {
  readonly sessionId: string;
  readonly cwd: string;
  readonly runId: string;
  readonly permissionMode?: string;
  readonly transcriptPath?: string;
  readonly logger: { warn(message: string): void };
  readonly signal: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** With `traceparent` (a traced run), each hook run is said on `emit` and gets its own span. */
  readonly depth?: number;
  readonly emit?: EventSink;
  readonly traceparent?: (id: string) => string | undefined;
}

/** The fields and means every hook of this run is given. */
export function hookContext(cx: HookRun): HookContext {
  return {
    session: {
      sessionId: cx.sessionId,
      cwd: cx.cwd,
      runId: cx.runId,
      permissionMode: cx.permissionMode ?? "default",
      ...(cx.transcriptPath !== undefined && { transcriptPath: cx.transcriptPath }),
    },
    warn: (message) => cx.logger.warn(message),
    signal: cx.signal,
    ...(cx.env && { env: cx.env }),
    ...(cx.traceparent &&
      cx.emit && {
        trace: hookTrace({
          runId: cx.runId,
          depth: cx.depth ?? 0,
          emit: cx.emit,
          traceparent: cx.traceparent,
        }),
      }),
  };
}

/** Several hook sources as one: each event's hooks in the order of the sources. */
export function mergeHooks(...sets: (Hooks | undefined)[]): Hooks {
  return Object.fromEntries(HOOK_EVENTS.map((e) => [e, sets.flatMap((h) => h?.[e] ?? [])]));
}
