import { spawn } from "node:child_process";
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
  /** A regular expression on the tool name; empty or `*` matches every tool. */
  readonly matcher?: string;
  readonly command: string;
}

export interface FunctionHook {
  readonly matcher?: string;
  /** Return `{ block: "why" }` to stop the call; the sentence is what the model is told. */
  run(payload: HookPayload): HookReply | Promise<HookReply>;
}

/** Nothing to continue, or `{ block }` to stop the call. */
export type HookReply = undefined | { block?: string };

export type Hook = CommandHook | FunctionHook;

export interface Hooks {
  readonly PreToolUse?: readonly Hook[];
  readonly PostToolUse?: readonly Hook[];
}

export type HookOutcome =
  | { readonly kind: "continue" }
  | { readonly kind: "block"; readonly message: string };

const CONTINUE: HookOutcome = { kind: "continue" };
const HOOK_TIMEOUT_MS = 60_000;

function matches(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return matcher === tool;
  }
}

/**
 * Runs the hooks of one event for one call, in order, until one blocks. A command hook gets the
 * payload as JSON on stdin: exit 0 continues, exit 2 blocks with its stderr as the reason, any other
 * failure is logged and the call continues. Hooks run after the permission decision, so they can
 * deny but never allow what the allow-list denies. Contract: never rejects.
 */
export async function runHooks(
  hooks: readonly Hook[] | undefined,
  payload: HookPayload,
  ctx: { readonly logger: Logger; readonly env?: Readonly<Record<string, string | undefined>> },
): Promise<HookOutcome> {
  for (const hook of hooks ?? []) {
    if (!matches(hook.matcher, payload.tool_name)) continue;
    if ("run" in hook) {
      try {
        const r = await hook.run(payload);
        if (r && typeof r.block === "string") return { kind: "block", message: r.block };
      } catch (e) {
        ctx.logger.warn(
          `${payload.hook_event_name} hook failed: ${(e as Error).message}; the call continues`,
        );
      }
      continue;
    }
    const r = await runCommandHook(hook.command, payload, ctx.env);
    if (r.code === 2)
      return {
        kind: "block",
        message: r.stderr.trim() || `blocked by the ${payload.hook_event_name} hook '${hook.command}'`,
      };
    if (r.code !== 0) {
      ctx.logger.warn(
        `${payload.hook_event_name} hook '${hook.command}' failed (${r.code === null ? "did not finish" : `exit ${r.code}`}): ${r.stderr.trim()}; the call continues`,
      );
    }
  }
  return CONTINUE;
}

// stdin is a pipe (a socket to bash), which makes bash think a remote shell started it and read
// ~/.bashrc; --norc keeps a hook's output its own.
function runCommandHook(
  command: string,
  payload: HookPayload,
  env: Readonly<Record<string, string | undefined>> | undefined,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn("bash", ["--norc", "--noprofile", "-c", command], {
      cwd: payload.cwd,
      env: { ...(env ?? process.env) },
      stdio: ["pipe", "ignore", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), HOOK_TIMEOUT_MS);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => {
      if (stderr.length < 10_000) stderr += d;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: e.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
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
