import { settleOrAbandon } from "../shared/abort.js";
import { HOOK_TIMEOUT_S } from "../shared/defaults.js";
import { runProcess } from "../shared/run-process.js";
import type { CommandHook, FunctionHook, HookElicitAnswer, HookPayload, HookReply } from "./hook-types.js";

/**
 * What one hook answered, read the same way whether it printed JSON or returned an object: a
 * decision with its reason, context for the model, a rewritten tool input; or how it failed.
 */
export interface Answer {
  readonly decision?: "block" | "ask" | "allow";
  readonly reason?: string;
  readonly context?: string;
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** Elicitation, ElicitationResult: the answer to a server's question it gives. */
  readonly elicitation?: HookElicitAnswer;
  /** The hook did not answer: it timed out, could not start, exited otherwise, threw, or said nonsense. */
  readonly failed?: string;
  /** `continue: false`: everything stops (a Stop hook's: the run may stop). */
  readonly halt?: boolean;
  /** A command hook's exit code, when it exited. */
  readonly exitCode?: number;
}

const MAX_OUTPUT = 64 * 1024;
/** After the run's abort (or its timeout), how long a function hook that ignores it is waited for. */
const ABANDON_GRACE_MS = 500;
/** The events whose plain standard output is context for the model (as Claude Code reads it). */
const STDOUT_IS_CONTEXT = new Set(["SessionStart", "UserPromptSubmit"]);

export interface RunOne {
  readonly signal: AbortSignal;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A function hook: called with the payload and a signal; a throw or a timeout is a failure. */
export async function runFunctionHook(hook: FunctionHook, payload: HookPayload, cx: RunOne): Promise<Answer> {
  const seconds = hook.timeout ?? HOOK_TIMEOUT_S;
  const timer = AbortSignal.timeout(seconds * 1000);
  const stop = AbortSignal.any([cx.signal, timer]);
  const name = `the ${hook.origin ?? "function"} hook`;
  try {
    const reply = await settleOrAbandon<HookReply | typeof TIMED_OUT>(
      Promise.resolve(hook.run(payload, { signal: stop })),
      stop,
      ABANDON_GRACE_MS,
      () => TIMED_OUT,
    );
    if (reply === TIMED_OUT)
      return {
        failed: cx.signal.aborted
          ? `${name} was stopped: the run was aborted`
          : `${name} did not finish within ${seconds} s`,
      };
    if (reply === undefined || reply === null) return {};
    if (typeof reply !== "object" || Array.isArray(reply))
      return { failed: `${name} answered ${typeof reply}, not an object` };
    return answerOf(reply as Record<string, unknown>, payload.hook_event_name, name);
  } catch (e) {
    return { failed: `hook failed: ${(e as Error).message}` };
  }
}

const TIMED_OUT = Symbol("timed out");

// stdin is a pipe (a socket to bash), which makes bash think a remote shell started it and read
// ~/.bashrc; --norc keeps a hook's output its own.
/** A command hook: the payload as JSON on stdin; exit 0 answers (JSON or text), exit 2 blocks. */
export async function runCommandHook(hook: CommandHook, payload: HookPayload, cx: RunOne): Promise<Answer> {
  const timeout = hook.timeout ?? HOOK_TIMEOUT_S;
  const r = await runProcess("bash", ["--norc", "--noprofile", "-c", hook.command], {
    cwd: hook.cwd ?? payload.cwd,
    env: { ...(cx.env ?? process.env), ...hook.env },
    signal: cx.signal,
    timeoutMs: timeout * 1000,
    input: JSON.stringify(payload),
    maxChars: MAX_OUTPUT,
  });
  // A hook from outside the project's files (a plugin's) says whose it is.
  const name = `${hook.origin?.startsWith("plugin") ? `${hook.origin} ` : ""}hook '${hook.command}'`;
  const stderr = r.stderr.text().trim();
  switch (r.kind) {
    case "timed-out":
      return { failed: `${name} did not finish within ${timeout} s` };
    case "aborted":
      return { failed: `${name} was stopped: the run was aborted` };
    case "not-started":
      return { failed: `${name} could not run: ${r.message}` };
    case "signalled":
      return { failed: `${name} was killed by ${r.signal}` };
  }
  return { ...answerOfExit(r.code, r.stdout.text().trim(), stderr, payload, name), exitCode: r.code };
}

/** What a command hook that exited said: exit 2 blocks, another code fails, 0 answers on stdout. */
function answerOfExit(
  code: number,
  text: string,
  stderr: string,
  payload: HookPayload,
  name: string,
): Answer {
  if (code === 2)
    return { decision: "block", reason: stderr || `blocked by the ${payload.hook_event_name} ${name}` };
  if (code !== 0) return { failed: `${name} failed (exit ${code})${stderr ? `: ${stderr}` : ""}` };
  if (!text.startsWith("{")) {
    return STDOUT_IS_CONTEXT.has(payload.hook_event_name) && text !== "" ? { context: text } : {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("not an object");
    return answerOf(parsed as Record<string, unknown>, payload.hook_event_name, name);
  } catch (e) {
    return { failed: `${name} printed JSON that cannot be read (${(e as Error).message})` };
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Claude Code's JSON answer (`decision`/`reason`, `continue`/`stopReason`, `hookSpecificOutput`
 * with `permissionDecision`, `permissionDecisionReason`, `additionalContext`, `updatedInput`), and
 * the library's short form (`block`, `ask`, `allow`, `context`, `updatedInput`), read as one.
 */
export function answerOf(reply: Record<string, unknown>, event: string, name: string): Answer {
  const s = isRecord(reply.hookSpecificOutput) ? reply.hookSpecificOutput : {};
  const text = (...xs: unknown[]) =>
    xs.find((x) => typeof x === "string" && x.trim() !== "") as string | undefined;
  const context = text(s.additionalContext, reply.context);
  const rawInput = s.updatedInput ?? reply.updatedInput;
  if (rawInput !== undefined && !isRecord(rawInput))
    return { failed: `${name} answered an updatedInput that is not an object` };
  const elicitation = ELICIT_EVENTS.has(event) ? elicitAnswerOf(s, reply) : undefined;
  if (typeof elicitation === "string") return { failed: `${name} ${elicitation}` };
  const base: Answer = {
    ...(context !== undefined && { context: context.trim() }),
    ...(rawInput !== undefined && { updatedInput: rawInput }),
    ...(elicitation && { elicitation }),
  };
  const decision = s.permissionDecision ?? reply.decision;
  const reason = text(s.permissionDecisionReason, reply.reason, reply.stopReason)?.trim();
  if (typeof reply.block === "string") return { ...base, decision: "block", reason: reply.block };
  if (typeof reply.ask === "string") return { ...base, decision: "ask", reason: reply.ask };
  if (decision === "deny" || decision === "block")
    return { ...base, decision: "block", reason: reason ?? `blocked by ${name}` };
  if (reply.continue === false)
    return { ...base, halt: true, decision: "block", reason: reason ?? `${name} stopped the ${event}` };
  if (decision === "ask")
    return { ...base, decision: "ask", reason: reason ?? `${name} asks for a user's approval` };
  if (decision === "allow" || decision === "approve" || reply.allow === true)
    return { ...base, decision: "allow" };
  return base;
}

const ELICIT_EVENTS = new Set(["Elicitation", "ElicitationResult"]);

/**
 * The answer to a server's question in a hook's reply (`hookSpecificOutput.action`/`content`, or
 * the library's `action`/`content`); none when it gives no action; a string: why it cannot be read.
 */
function elicitAnswerOf(
  s: Record<string, unknown>,
  reply: Record<string, unknown>,
): HookElicitAnswer | string | undefined {
  const action = s.action ?? reply.action;
  const content = s.content ?? reply.content;
  if (action === undefined) return undefined;
  if (action !== "accept" && action !== "decline" && action !== "cancel")
    return `answered the action ${JSON.stringify(action)}, not accept, decline or cancel`;
  if (content !== undefined && !isRecord(content)) return "answered a content that is not an object";
  return action === "accept" && content !== undefined ? { action, content } : { action };
}
