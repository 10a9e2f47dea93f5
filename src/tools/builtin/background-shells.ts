import type { ProcessResult } from "../../shared/run-process.js";
import { collectOutput, runShell, type ShellOptions } from "./shell-process.js";

/** How a background command is started: Bash's shell options, without what the registry owns. */
export type BackgroundStart = Omit<ShellOptions, "signal" | "output">;

export interface ShellReading {
  readonly command: string;
  /** What it wrote since the last reading (cut, as Bash cuts, with a note). */
  readonly output: string;
  /** `running`, `exited with code 0`, `killed`, … */
  readonly status: string;
  readonly running: boolean;
}

/**
 * The background commands of one run (Bash with `run_in_background`). Each runs in its own process
 * group, as a foreground command does; the run closes the registry when it ends, which ends them all.
 * A run sees only its own: a subagent's run has a registry of its own.
 */
export interface BackgroundShells {
  /** Starts a command; its id (`bash_1`, `bash_2`, … in this run), or why it did not start. */
  start(
    command: string,
    options: BackgroundStart,
  ): Promise<{ ok: true; id: string } | { ok: false; message: string }>;
  /** Its output since the last reading, and its status; undefined for an id this run did not start. */
  read(id: string): ShellReading | undefined;
  /** Settles with its status once it has ended and all its output has come; reads nothing. */
  ended(id: string): Promise<string> | undefined;
  /** Ends its whole process group and waits until it has ended; `not-running` when it had ended. */
  kill(id: string): Promise<{ kind: "unknown" } | { kind: "killed" | "not-running"; status: string }>;
  /** Ends every command still running and refuses new ones. Idempotent; does not wait. */
  close(): void;
}

interface Shell {
  readonly command: string;
  readonly output: ReturnType<typeof collectOutput>;
  readonly stop: AbortController;
  readonly done: Promise<ProcessResult>;
  outcome?: ProcessResult;
}

export function createBackgroundShells(): BackgroundShells {
  const shells = new Map<string, Shell>();
  let closed = false;
  return {
    async start(command, options) {
      if (closed) return { ok: false, message: "the run is ending; no command can start in it now" };
      const id = `bash_${shells.size + 1}`;
      const output = collectOutput(options.maxChars);
      const stop = new AbortController();
      const done = runShell(command, { ...options, output, signal: stop.signal });
      const shell: Shell = { command, output, stop, done };
      void done.then((o) => {
        shell.outcome = o;
      });
      shells.set(id, shell);
      // A spawn that throws (bash missing, a sandbox that cannot be set up) has settled already.
      const early = await Promise.race([done, Promise.resolve(undefined)]);
      if (early?.kind === "not-started") return { ok: false, message: early.message };
      return { ok: true, id };
    },
    read(id) {
      const shell = shells.get(id);
      if (!shell) return undefined;
      return {
        command: shell.command,
        output: shell.output.take(),
        status: statusOf(shell.outcome),
        running: shell.outcome === undefined,
      };
    },
    ended(id) {
      return shells.get(id)?.done.then(statusOf);
    },
    async kill(id) {
      const shell = shells.get(id);
      if (!shell) return { kind: "unknown" };
      if (shell.outcome !== undefined) return { kind: "not-running", status: statusOf(shell.outcome) };
      shell.stop.abort();
      return { kind: "killed", status: statusOf(await shell.done) };
    },
    close() {
      closed = true;
      for (const shell of shells.values()) shell.stop.abort();
    },
  };
}

function statusOf(o: ProcessResult | undefined): string {
  switch (o?.kind) {
    case undefined:
      return "running";
    case "not-started":
      return `failed to start: ${o.message}`;
    case "aborted":
      return "killed";
    case "timed-out":
      return "killed: timed out";
    case "exited":
      return `exited with code ${o.code}`;
    case "signalled":
      return `killed by ${o.signal}`;
  }
}
