import { TOOL_ALIASES } from "../permissions/tool-matcher.js";
import { settleOrAbandon } from "../shared/abort.js";
import { HOOK_TIMEOUT_S } from "../shared/defaults.js";
import { runProcess } from "../shared/run-process.js";
import type { Logger } from "../tools/types.js";

export type HookEvent = "PreToolUse" | "PostToolUse";

/** What a hook is told, as JSON on stdin (command hooks) or as the argument (function hooks). */
export interface HookPayload {
  readonly hook_event_name: HookEvent;
  readonly tool_name: string;
  readonly tool_input: unknown;
  readonly run_id: string;
  readonly session_id: string;
  readonly cwd: string;
  /** PostToolUse only. */
  readonly tool_response?: { readonly content: string; readonly is_error: boolean };
}

export interface CommandHook {
  /** A regular expression on the tool name (or one of its aliases: `Agent` matches Task); empty or `*` matches every tool. */
  readonly matcher?: string;
  readonly command: string;
  /** Seconds before the hook is stopped; default 60. */
  readonly timeout?: number;
  /**
   * The hook is not run (its project folder is not trusted), and this says why: a PreToolUse call
   * it matches is refused with it — a guard that cannot run fails closed — a PostToolUse one goes on.
   */
  readonly withheld?: string;
  /** Variables beside the run's environment (a plugin's `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The folder the command runs in instead of the run's (a plugin's hooks: the project folder). */
  readonly cwd?: string;
  /** Who defined it when not the project's files: `plugin NAME` (named in what the model is told). */
  readonly origin?: string;
}

export interface FunctionHook {
  readonly matcher?: string;
  /**
   * Return `{ block: "why" }` to stop the call, `{ ask: "why" }` to ask a user, `{ allow: true }` to
   * spare the user the question (never beyond the allow-lists); the sentence is what the model is told.
   */
  run(payload: HookPayload): HookReply | Promise<HookReply>;
}

/** Nothing to continue, `{ block }` to stop the call, `{ ask }` to have a user approve it. */
export type HookReply = undefined | { block?: string; ask?: string; allow?: boolean };

export type Hook = CommandHook | FunctionHook;

export interface Hooks {
  readonly PreToolUse?: readonly Hook[];
  readonly PostToolUse?: readonly Hook[];
}

export type HookOutcome =
  | { readonly kind: "continue" }
  | { readonly kind: "block"; readonly message: string }
  | { readonly kind: "ask"; readonly message: string }
  /** A hook approved the call: no approval is asked for (the allow-lists still judged it first). */
  | { readonly kind: "allow" };

const CONTINUE: HookOutcome = { kind: "continue" };
const MAX_OUTPUT = 64 * 1024;
/** After the run's abort, how long a function hook that ignores it is waited for. */
const ABANDON_GRACE_MS = 500;

const ALIASES_OF = new Map<string, string[]>();
for (const [alias, tool] of Object.entries(TOOL_ALIASES))
  ALIASES_OF.set(tool, [...(ALIASES_OF.get(tool) ?? []), alias]);

function matches(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  const names = [tool, ...(ALIASES_OF.get(tool) ?? [])];
  try {
    const re = new RegExp(`^(?:${matcher})$`);
    return names.some((n) => re.test(n));
  } catch {
    return names.includes(matcher);
  }
}

/**
 * Runs the hooks of one event for one call, in order, until one blocks (or asks). A command hook
 * gets the payload as JSON on stdin; exit 2 blocks with its stderr as the reason; exit 0 continues,
 * or answers with Claude Code's JSON (`hookSpecificOutput.permissionDecision` deny/allow/ask with
 * `permissionDecisionReason`, or the older `decision` block/approve with `reason`). An `allow` never
 * widens a list: hooks run after the permission decision. A PreToolUse hook fails closed: one that
 * times out, cannot start, exits with another code, throws, or prints JSON that cannot be read
 * blocks the call and says why. A PostToolUse hook that fails is a warning. The run's abort stops
 * a command hook's process group at once (a function hook is abandoned shortly after) and ends the
 * hooks: a PreToolUse call is then blocked as interrupted, a PostToolUse one goes on without a
 * word. Contract: never rejects.
 */
export async function runHooks(
  hooks: readonly Hook[] | undefined,
  payload: HookPayload,
  ctx: HookContext,
): Promise<HookOutcome> {
  const pre = payload.hook_event_name === "PreToolUse";
  let allowed = false;
  for (const hook of hooks ?? []) {
    if (!matches(hook.matcher, payload.tool_name)) continue;
    if ("withheld" in hook && hook.withheld !== undefined) {
      if (pre) return { kind: "block", message: hook.withheld };
      continue;
    }
    const outcome =
      "run" in hook
        ? await runFunctionHook(hook, payload, ctx.signal)
        : await commandOutcome(hook, payload, ctx);
    if (ctx.signal.aborted) return pre ? INTERRUPTED : CONTINUE;
    if (outcome.kind === "continue") continue;
    // An approval does not stop the hooks after it: any of them may still block.
    if (outcome.kind === "allow") {
      allowed = true;
      continue;
    }
    if (outcome.kind === "failed") {
      if (pre)
        return { kind: "block", message: `${outcome.message}; a PreToolUse hook that fails blocks the call` };
      ctx.logger.warn(`${payload.hook_event_name} ${outcome.message}`);
      continue;
    }
    return outcome;
  }
  return allowed && pre ? { kind: "allow" } : CONTINUE;
}

export interface HookContext {
  readonly logger: Logger;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The run's signal. */
  readonly signal: AbortSignal;
}

type Outcome = HookOutcome | { readonly kind: "failed"; readonly message: string };

const INTERRUPTED: HookOutcome = { kind: "block", message: "interrupted: the run was aborted" };

async function runFunctionHook(
  hook: FunctionHook,
  payload: HookPayload,
  signal: AbortSignal,
): Promise<Outcome> {
  try {
    const r = await settleOrAbandon(
      Promise.resolve(hook.run(payload)),
      signal,
      ABANDON_GRACE_MS,
      () => undefined,
    );
    if (r && typeof r.block === "string") return { kind: "block", message: r.block };
    if (r && typeof r.ask === "string") return { kind: "ask", message: r.ask };
    if (r?.allow === true) return { kind: "allow" };
    return CONTINUE;
  } catch (e) {
    return { kind: "failed", message: `hook failed: ${(e as Error).message}` };
  }
}

// stdin is a pipe (a socket to bash), which makes bash think a remote shell started it and read
// ~/.bashrc; --norc keeps a hook's output its own.
async function commandOutcome(hook: CommandHook, payload: HookPayload, ctx: HookContext): Promise<Outcome> {
  const timeout = hook.timeout ?? HOOK_TIMEOUT_S;
  const r = await runProcess("bash", ["--norc", "--noprofile", "-c", hook.command], {
    cwd: hook.cwd ?? payload.cwd,
    env: { ...(ctx.env ?? process.env), ...hook.env },
    signal: ctx.signal,
    timeoutMs: timeout * 1000,
    input: JSON.stringify(payload),
    maxChars: MAX_OUTPUT,
  });
  const name = `${hook.origin ? `${hook.origin} ` : ""}hook '${hook.command}'`;
  const stderr = r.stderr.text().trim();
  switch (r.kind) {
    case "timed-out":
      return { kind: "failed", message: `${name} did not finish within ${timeout} s` };
    case "aborted":
      return { kind: "failed", message: `${name} was stopped: the run was aborted` };
    case "not-started":
      return { kind: "failed", message: `${name} could not run: ${r.message}` };
    case "signalled":
      return { kind: "failed", message: `${name} was killed by ${r.signal}` };
  }
  if (r.code === 2)
    return { kind: "block", message: stderr || `blocked by the ${payload.hook_event_name} ${name}` };
  if (r.code !== 0)
    return { kind: "failed", message: `${name} failed (exit ${r.code})${stderr ? `: ${stderr}` : ""}` };
  return jsonOutcome(r.stdout.text(), name);
}

/** Claude Code's JSON answer on stdout, if the hook printed one. Plain text is not an answer. */
function jsonOutcome(stdout: string, name: string): Outcome {
  const text = stdout.trim();
  if (!text.startsWith("{")) return CONTINUE;
  let reply: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("not an object");
    reply = parsed as Record<string, unknown>;
  } catch (e) {
    return { kind: "failed", message: `${name} printed JSON that cannot be read (${(e as Error).message})` };
  }
  const specific = (typeof reply.hookSpecificOutput === "object" && reply.hookSpecificOutput) || {};
  const s = specific as Record<string, unknown>;
  const decision = s.permissionDecision ?? reply.decision;
  const reason = String(s.permissionDecisionReason ?? reply.reason ?? reply.stopReason ?? "").trim();
  if (decision === "deny" || decision === "block")
    return { kind: "block", message: reason || `blocked by ${name}` };
  if (decision === "ask") return { kind: "ask", message: reason || `${name} asks for a user's approval` };
  if (reply.continue === false) return { kind: "block", message: reason || `${name} stopped the call` };
  if (decision === "allow" || decision === "approve") return { kind: "allow" };
  return CONTINUE;
}

/** Several sets of hooks as one: each event's hooks in the order of the sets. */
export function mergeHooks(...sets: (Hooks | undefined)[]): Hooks {
  return {
    PreToolUse: sets.flatMap((h) => h?.PreToolUse ?? []),
    PostToolUse: sets.flatMap((h) => h?.PostToolUse ?? []),
  };
}
