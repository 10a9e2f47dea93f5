import { loadShellParser } from "../../permissions/shell/parse-shell.js";
import { judgesCommand } from "../../permissions/subject-specs.js";
import { childProcess } from "../../shared/node-builtins.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../types.js";
import type { BackgroundStart } from "./background-shells.js";
import { isReadOnlyCommand } from "./read-only-commands.js";
import { helperCanRun, shellSpawn } from "./shell-helper.js";
import { killLiveProcessGroups, runShell, type Spawn } from "./shell-process.js";

export const BASH_DEFAULT_TIMEOUT = 120_000;
export const BASH_MAX_TIMEOUT = 600_000;
export const BASH_MAX_OUTPUT = 30_000;

const schema = {
  type: "object",
  properties: {
    command: { type: "string", description: "The command line, run with bash -c in the working folder." },
    timeout: {
      type: "integer",
      description: `Milliseconds before the command is killed (default ${BASH_DEFAULT_TIMEOUT}, at most ${BASH_MAX_TIMEOUT}).`,
    },
    description: { type: "string", description: "What the command does, in a few words." },
    run_in_background: {
      type: "boolean",
      description:
        "Start the command and answer at once with a shell id; read its output with BashOutput, end it with KillShell. It ends when the run does.",
    },
  },
  required: ["command"],
} as const;

export type { Spawn };

/**
 * Bash: `bash -c` in the working folder, in its own process group; stdout and stderr together, in
 * the order they came, with the exit code, as soon as the output is complete. Abort or timeout kills
 * the whole group; what the command leaves running in its group is ended when its shell exits.
 * With `run_in_background` the same command line starts the same way and the call answers at once;
 * the run's registry (`ctx.shells`) holds it until BashOutput reads it, KillShell or the run ends it.
 */
export function createBashTool(deps: { spawn?: Spawn } = {}): Tool {
  return defineTool<typeof schema>({
    name: "Bash",
    description: `Runs a command with bash -c in the working folder and returns its output (stdout and stderr, cut at ${BASH_MAX_OUTPUT} characters) and exit code. Times out after ${BASH_DEFAULT_TIMEOUT} ms unless timeout says otherwise (at most ${BASH_MAX_TIMEOUT}). For a command that keeps running (a server, a watcher), set run_in_background and read it with BashOutput.`,
    inputSchema: schema,
    permission: judgesCommand("command"),
    concurrency: "sequential",
    interrupt: "terminates-process",
    concurrencyFor: (input, shell) =>
      isReadOnlyCommand(
        typeof input === "object" && input !== null ? (input as { command?: unknown }).command : undefined,
        shell,
      )
        ? "concurrent-safe"
        : "sequential",
    async execute(input, ctx) {
      if (input.command.trim() === "") return fail("command is empty.");
      if (input.timeout !== undefined && input.timeout < 1)
        return fail(`timeout must be 1 ms or more, got ${input.timeout}.`);
      const timeout = effectiveTimeout(input.timeout);
      if (ctx.signal.aborted) return fail("Interrupted before it started.");
      const how = {
        cwd: ctx.cwd,
        env: ctx.env ?? process.env,
        maxChars: BASH_MAX_OUTPUT,
        // In a sandboxed run the same command line starts inside the sandbox (src/sandbox/).
        ...((deps.spawn || ctx.sandbox) && {
          spawn: ctx.sandbox ? ctx.sandbox.wrapSpawn(deps.spawn ?? childProcess().spawn) : deps.spawn,
        }),
      };
      if (input.run_in_background) return startInBackground(input.command, input.timeout, how, ctx);
      // A foreground command outside a sandbox is run by the shell helper (shell-helper.ts) when it can be.
      const viaHelper = !how.spawn && helperCanRun(input.command, await loadShellParser());
      const r = await runShell(input.command, {
        ...how,
        ...(viaHelper && { spawn: shellSpawn }),
        timeoutMs: timeout,
        signal: ctx.signal,
        ...(ctx.report && ctx.callId && { onOutput: lastLineReporter(ctx.report, ctx.callId) }),
      });
      const text = r.stdout.text();
      const before = `${text}${text && !text.endsWith("\n") ? "\n" : ""}`;
      switch (r.kind) {
        case "not-started":
          return fail(`Cannot run bash: ${r.message}.`);
        case "timed-out":
          return fail(`${text}${text ? "\n" : ""}[killed after ${timeout} ms: timed out]`);
        case "aborted":
          return fail(`${text}${text ? "\n" : ""}[interrupted: the run was aborted]`);
        case "signalled":
          return fail(`${before}[killed by ${r.signal}]`);
      }
      const body = `${before}[exit code ${r.code}]`;
      return r.code === 0 ? ok(body) : fail(body);
    },
  });
}

/** A background start: answered at once with the shell's id; a timeout applies only when one is given. */
async function startInBackground(
  command: string,
  timeout: number | undefined,
  how: BackgroundStart,
  ctx: ToolContext,
): Promise<ToolResult> {
  if (!ctx.shells)
    return fail("This run cannot keep commands in the background; run it without run_in_background.");
  const started = await ctx.shells.start(command, {
    ...how,
    ...(timeout !== undefined && { timeoutMs: effectiveTimeout(timeout) }),
  });
  if (!started.ok) return fail(`Cannot run bash: ${started.message}.`);
  return ok(
    `Started in the background as ${started.id}. Read its output with BashOutput (bash_id "${started.id}"); end it with KillShell. It is ended when this run ends.`,
  );
}

/** The timeout a call gets: the default when none is given, never more than the maximum. */
export function effectiveTimeout(requested: number | undefined): number {
  return Math.min(requested ?? BASH_DEFAULT_TIMEOUT, BASH_MAX_TIMEOUT);
}

export { killLiveProcessGroups };

/** How often a running command's last line of output is told, at most. */
const OUTPUT_EVERY_MS = 250;

/** Tells the run a running command's latest non-empty line of output, a few times a second at most. */
function lastLineReporter(report: NonNullable<ToolContext["report"]>, id: string): (chunk: string) => void {
  let last = 0;
  let pending = "";
  return (chunk) => {
    pending = `${pending}${chunk}`.slice(-2_000);
    const now = performance.now();
    if (now - last < OUTPUT_EVERY_MS) return;
    const line = pending
      .split(/\r?\n|\r/)
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1);
    if (!line) return;
    last = now;
    report({ type: "tool_output", id, text: line.slice(0, 200) });
  };
}
