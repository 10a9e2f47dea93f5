// What a run's callers share besides the terminal's run: the I/O a run gets, its exit status, the
// session `--continue` takes. Kept apart from run-command.ts so that a stream-json session (the Agent
// SDK's road) loads none of the terminal's rendering (markdown, highlighting, progress).
import { findProjectRoot } from "../../definitions/discover.js";
import type { RunResult } from "../../loop/events.js";
import { newestSession } from "../../loop/session-list.js";
import { sessionsDir } from "../../loop/transcript.js";
import type { CliIo } from "../io.js";

export interface RunIo extends CliIo {
  readonly stdin?: AsyncIterable<string | Buffer> & { isTTY?: boolean };
  /** Where Ctrl-C comes from; the CLI passes the process. */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** The project's most recent session, for `--continue`; null when it has none. */
export function latestSession(io: CliIo, cwd = io.cwd): string | null {
  return newestSession(sessionsDir(findProjectRoot(cwd, io.env.HOME))) ?? null;
}

/**
 * The exit status of a command refused because another agentmd writes its session now (`run -c`
 * during the session's run, a batch item another batch runs): 75, "try again later" (EX_TEMPFAIL).
 */
export const SESSION_BUSY_EXIT = 75;

export function exitCode(r: RunResult): number {
  switch (r.outcome) {
    case "done":
      return 0;
    case "aborted":
      return 130;
    case "refused":
      return 2;
    default:
      return 1;
  }
}
