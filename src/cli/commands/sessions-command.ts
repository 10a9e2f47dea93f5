import { existsSync, rmSync } from "node:fs";
import { findProjectRoot } from "../../definitions/discover.js";
import { removeCheckpoints } from "../../loop/checkpoints.js";
import { listSessions } from "../../loop/session-list.js";
import { readSession, SessionError, sessionFile, sessionHolder, sessionsDir } from "../../loop/transcript.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { type CliIo, styleFor } from "../io.js";
import { createTextRenderer, printable } from "../terminal/render.js";

/** `sessions`' options: its parser and its help's Options lines. */
export const SESSIONS_OPTIONS = {
  json: { type: "boolean", default: false, help: "the list as JSON, or the session's events as JSON lines" },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const SESSIONS_HELP = `Usage: agentmd sessions [--json]
       agentmd sessions show ID [--json]
       agentmd sessions rm ID

Lists the project's sessions (.agentmd/sessions/), newest first, or shows one: its
events rendered as the run showed them (or as JSON lines with --json). 'rm' removes
a session: its transcript and its checkpoints (what 'agentmd rewind' puts back).
Continue one with 'agentmd run --resume ID' (or 'agentmd -c' for the newest).

Options:
${optionsHelp(SESSIONS_OPTIONS, 14)}

Example:
  agentmd sessions show 20261130-101500-a1b2c3 --json`;

/** Runs `agentmd sessions`; returns the exit code. */
export function runSessions(args: { show?: string; remove?: string; json: boolean }, io: CliIo): number {
  const dir = sessionsDir(findProjectRoot(io.cwd, io.env.HOME));
  if (args.remove !== undefined) return removeSession(dir, args.remove, io);
  if (args.show !== undefined) {
    let events: ReturnType<typeof readSession>["events"];
    try {
      const read = readSession(dir, args.show);
      events = read.events;
      if (read.skipped > 0)
        io.stderr.write(
          `agentmd sessions: ${read.skipped} line(s) of this session could not be read and were skipped\n`,
        );
    } catch (e) {
      if (e instanceof SessionError) {
        io.stderr.write(`agentmd sessions: ${printable(e.message, false)}\n`);
        return 1;
      }
      throw e;
    }
    if (args.json) {
      for (const e of events) io.stdout.write(`${JSON.stringify(e)}\n`);
      return 0;
    }
    const style = styleFor(io.stdout, io.env);
    const render = createTextRenderer(io.stdout, style);
    for (const e of events) {
      if (e.type === "user_message" && e.depth === 0) {
        io.stdout.write(
          `${style.bold("›")} ${typeof e.content === "string" ? printable(e.content) : "(content blocks)"}\n`,
        );
      }
      render(e);
    }
    return 0;
  }
  const sessions = listSessions(dir);
  if (args.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.stdout.write(`No sessions in ${dir}.\n`);
    return 0;
  }
  for (const s of sessions) {
    const prompt = printable(s.prompt.replace(/\s+/g, " "), false);
    io.stdout.write(
      `${s.id}  ${s.modified.toISOString().slice(0, 16).replace("T", " ")}  ${String(s.turns).padStart(3)} turns  ${(s.outcome ?? "?").padEnd(8)}  ${prompt.length > 60 ? `${prompt.slice(0, 57)}...` : prompt}\n`,
    );
  }
  return 0;
}

/** `sessions rm ID`: the transcript and its checkpoints go together; a session in use is left alone. */
function removeSession(dir: string, id: string, io: CliIo): number {
  try {
    const file = sessionFile(dir, id);
    const holder = sessionHolder(dir, id);
    if (holder !== undefined) {
      io.stderr.write(
        `agentmd sessions: the session ${id} is in use by another agentmd (process ${holder})\n`,
      );
      return 75;
    }
    if (!existsSync(file)) {
      io.stderr.write(`agentmd sessions: no session '${printable(id, false)}' in ${dir}\n`);
      return 1;
    }
    rmSync(file, { force: true });
    removeCheckpoints(dir, id);
    io.stdout.write(`removed the session ${id} and its checkpoints\n`);
    return 0;
  } catch (e) {
    io.stderr.write(`agentmd sessions: ${printable((e as Error).message, false)}\n`);
    return 1;
  }
}
