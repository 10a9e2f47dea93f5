import { spawn } from "node:child_process";
import { TOOL_ALIASES } from "../permissions/tool-matcher.js";
import { HOOK_TIMEOUT_S } from "../shared/defaults.js";
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
/** Variables a hook never sees: the model's own credentials. */
const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

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
 * blocks the call and says why. A PostToolUse hook that fails is a warning. Contract: never rejects.
 */
export async function runHooks(
  hooks: readonly Hook[] | undefined,
  payload: HookPayload,
  ctx: { readonly logger: Logger; readonly env?: Readonly<Record<string, string | undefined>> },
): Promise<HookOutcome> {
  const pre = payload.hook_event_name === "PreToolUse";
  let allowed = false;
  for (const hook of hooks ?? []) {
    if (!matches(hook.matcher, payload.tool_name)) continue;
    const outcome =
      "run" in hook ? await runFunctionHook(hook, payload) : await commandOutcome(hook, payload, ctx.env);
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

type Outcome = HookOutcome | { readonly kind: "failed"; readonly message: string };

async function runFunctionHook(hook: FunctionHook, payload: HookPayload): Promise<Outcome> {
  try {
    const r = await hook.run(payload);
    if (r && typeof r.block === "string") return { kind: "block", message: r.block };
    if (r && typeof r.ask === "string") return { kind: "ask", message: r.ask };
    if (r?.allow === true) return { kind: "allow" };
    return CONTINUE;
  } catch (e) {
    return { kind: "failed", message: `hook failed: ${(e as Error).message}` };
  }
}

async function commandOutcome(
  hook: CommandHook,
  payload: HookPayload,
  env: Readonly<Record<string, string | undefined>> | undefined,
): Promise<Outcome> {
  const timeout = hook.timeout ?? HOOK_TIMEOUT_S;
  const r = await runCommandHook(hook.command, payload, env, timeout * 1000);
  const name = `hook '${hook.command}'`;
  if (r.timedOut) return { kind: "failed", message: `${name} did not finish within ${timeout} s` };
  if (r.code === null) return { kind: "failed", message: `${name} could not run: ${r.stderr.trim()}` };
  if (r.code === 2)
    return { kind: "block", message: r.stderr.trim() || `blocked by the ${payload.hook_event_name} ${name}` };
  if (r.code !== 0)
    return {
      kind: "failed",
      message: `${name} failed (exit ${r.code})${r.stderr.trim() ? `: ${r.stderr.trim()}` : ""}`,
    };
  return jsonOutcome(r.stdout, name);
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

// stdin is a pipe (a socket to bash), which makes bash think a remote shell started it and read
// ~/.bashrc; --norc keeps a hook's output its own.
function runCommandHook(
  command: string,
  payload: HookPayload,
  env: Readonly<Record<string, string | undefined>> | undefined,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const childEnv: Record<string, string | undefined> = { ...(env ?? process.env) };
    for (const k of HIDDEN_ENV) delete childEnv[k];
    const child = spawn("bash", ["--norc", "--noprofile", "-c", command], {
      cwd: payload.cwd,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => {
      if (stderr.length < 10_000) stderr += d;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: e.message, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify(payload));
  });
}

/** Several sets of hooks as one: each event's hooks in the order of the sets. */
export function mergeHooks(...sets: (Hooks | undefined)[]): Hooks {
  return {
    PreToolUse: sets.flatMap((h) => h?.PreToolUse ?? []),
    PostToolUse: sets.flatMap((h) => h?.PostToolUse ?? []),
  };
}
