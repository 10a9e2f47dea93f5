import { type ChildProcess, spawn } from "node:child_process";
import { judgesCommand } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";

export const BASH_DEFAULT_TIMEOUT = 120_000;
export const BASH_MAX_TIMEOUT = 600_000;
export const BASH_MAX_OUTPUT = 30_000;
/** After SIGTERM, how long a process group gets before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long its output may still drain (a background child can hold it open). */
const DRAIN_MS = 200;

/** Variables a command never sees: the model's own credentials. */
const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

const schema = {
  type: "object",
  properties: {
    command: { type: "string", description: "The command line, run with bash -c in the working folder." },
    timeout: {
      type: "integer",
      description: `Milliseconds before the command is killed (default ${BASH_DEFAULT_TIMEOUT}, at most ${BASH_MAX_TIMEOUT}).`,
    },
    description: { type: "string", description: "What the command does, in a few words." },
  },
  required: ["command"],
} as const;

export type Spawn = (command: string, args: string[], options: Parameters<typeof spawn>[2]) => ChildProcess;

/**
 * Bash: `bash -c` in the working folder, in its own process group; stdout and stderr together, in
 * the order they came, with the exit code. Abort or timeout kills the whole group.
 */
export function createBashTool(deps: { spawn?: Spawn } = {}): Tool {
  const run = deps.spawn ?? (spawn as Spawn);
  return defineTool<typeof schema>({
    name: "Bash",
    description: `Runs a command with bash -c in the working folder and returns its output (stdout and stderr, cut at ${BASH_MAX_OUTPUT} characters) and exit code. Times out after ${BASH_DEFAULT_TIMEOUT} ms unless timeout says otherwise (at most ${BASH_MAX_TIMEOUT}).`,
    inputSchema: schema,
    permission: judgesCommand("command"),
    concurrency: "sequential",
    interrupt: "terminates-process",
    async execute(input, ctx) {
      if (input.command.trim() === "") return fail("command is empty.");
      if (input.timeout !== undefined && input.timeout < 1)
        return fail(`timeout must be 1 ms or more, got ${input.timeout}.`);
      const timeout = effectiveTimeout(input.timeout);
      if (ctx.signal.aborted) return fail("Interrupted before it started.");
      const env: Record<string, string | undefined> = { ...(ctx.env ?? process.env) };
      for (const k of HIDDEN_ENV) delete env[k];
      let child: ChildProcess;
      try {
        // Issue 17: in a sandboxed run the same command line starts inside the sandbox (src/sandbox/).
        const start = ctx.sandbox ? ctx.sandbox.wrapSpawn(run) : run;
        child = start("bash", ["-c", input.command], {
          cwd: ctx.cwd,
          env,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
      } catch (e) {
        return fail(`Cannot start bash: ${(e as Error).message}.`);
      }
      const pid = child.pid;
      if (pid !== undefined) liveGroups.add(pid);
      const output = boundedOutput(BASH_MAX_OUTPUT);
      child.stdout?.setEncoding("utf8");
      child.stderr?.setEncoding("utf8");
      child.stdout?.on("data", output.add);
      child.stderr?.on("data", output.add);
      let stopped: "timeout" | "aborted" | undefined;
      const stop = (why: "timeout" | "aborted") => {
        stopped ??= why;
        killGroup(child);
      };
      const timer = setTimeout(() => stop("timeout"), timeout);
      const onAbort = () => stop("aborted");
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
        (resolve) => {
          child.once("error", (error) => resolve({ code: null, signal: null, error }));
          child.once("exit", (code, signal) => {
            // The shell is gone; give its output a moment to drain, then stop listening.
            setTimeout(() => {
              child.stdout?.destroy();
              child.stderr?.destroy();
              resolve({ code, signal });
            }, DRAIN_MS).unref();
          });
        },
      );
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      if (stopped) killGroup(child);
      else if (pid !== undefined) liveGroups.delete(pid);
      const text = output.text();
      if (result.error) return fail(`Cannot run bash: ${result.error.message}.`);
      if (stopped === "timeout")
        return fail(`${text}${text ? "\n" : ""}[killed after ${timeout} ms: timed out]`);
      if (stopped === "aborted") return fail(`${text}${text ? "\n" : ""}[interrupted: the run was aborted]`);
      const status = result.code ?? (result.signal ? `killed by ${result.signal}` : "unknown");
      const body = `${text}${text && !text.endsWith("\n") ? "\n" : ""}[exit code ${status}]`;
      return result.code === 0 ? ok(body) : fail(body);
    },
  });
}

/** The timeout a call gets: the default when none is given, never more than the maximum. */
export function effectiveTimeout(requested: number | undefined): number {
  return Math.min(requested ?? BASH_DEFAULT_TIMEOUT, BASH_MAX_TIMEOUT);
}

/** Process groups of commands still running, in this process: killed if the process goes away. */
const liveGroups = new Set<number>();

/**
 * SIGKILL to every command group still running. For the CLI's exit paths (a second Ctrl-C,
 * SIGTERM, SIGHUP): a command must not outlive the agent that started it. Synchronous.
 */
export function killLiveProcessGroups(): void {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  liveGroups.clear();
}

/** SIGTERM to the whole process group, SIGKILL after a grace period if anything is left. */
function killGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // the group is gone
    }
  };
  signalGroup("SIGTERM");
  setTimeout(() => {
    signalGroup("SIGKILL");
    liveGroups.delete(pid);
  }, KILL_GRACE_MS).unref();
}

/** Keeps the first `max` characters of a stream of chunks and counts the rest. */
function boundedOutput(max: number) {
  const chunks: string[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    add: (chunk: Buffer | string) => {
      const s = chunk.toString();
      if (kept >= max) {
        dropped += s.length;
        return;
      }
      const room = max - kept;
      chunks.push(s.length > room ? s.slice(0, room) : s);
      kept += Math.min(room, s.length);
      dropped += Math.max(0, s.length - room);
    },
    text: () => {
      const s = chunks.join("");
      return dropped > 0 ? `${s}\n[output cut at ${max} characters; ${dropped} more not shown]` : s;
    },
  };
}
