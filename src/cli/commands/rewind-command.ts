import path from "node:path";
import type { RewindReport, RewindRequest } from "../../invocation/runner.js";
import { SessionError } from "../../loop/transcript.js";
import type { Model } from "../../model/model.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { PERMISSION_FLAGS } from "../flags/permission-flags.js";
import type { SessionOptions } from "../flags/session-flags.js";
import { type CliIo, styleFor } from "../io.js";
import { openRunner } from "../open-runner.js";
import { printable } from "../terminal/printable.js";
import { shownIn } from "../terminal/rewind-chat.js";
import { rewindReportText, rewindWords, turnsListing } from "../terminal/rewind-lines.js";
import { restrictedWithNotice } from "./project-trust.js";
import { latestSession } from "./run-command.js";

/** `rewind`'s options: its parser and its help's Options lines. */
export const REWIND_OPTIONS = {
  resume: {
    type: "string",
    short: "r",
    value: "ID",
    help: "the session (default: the project's most recent)",
  },
  force: { type: "boolean", help: "put back files changed outside agentmd since the checkpoint too" },
  "dry-run": { type: "boolean", help: "say what would be put back; change nothing" },
  json: { type: "boolean", help: "the prompts, or what was done, as JSON" },
  cwd: { type: "string", value: "DIR", help: "the working folder (default: the current folder)" },
  ...PERMISSION_FLAGS,
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const REWIND_HELP = `Usage: agentmd rewind [-r ID] [--json]
       agentmd rewind [-r ID] N code|conversation|both [--force] [--dry-run] [--json]

Undoes what an agent did, without git. Without N: the session's prompts, numbered, with
the files each changed. With N: the session as it was just before its N-th prompt:
  code          the files its Write, Edit, MultiEdit and NotebookEdit calls changed (at
                every hop, subagents included) are put back; files they created are removed
  conversation  the conversation goes on from just before prompt N (chat -r, run --resume)
  both          the two
A file changed outside agentmd since the checkpoint is a conflict, shown and skipped
(--force puts it back anyway); a file the session may not write now, or whose path is
now a symbolic link, is skipped and said. What Bash changed is not in the checkpoints:
the rewind says which prompts ran Bash. In chat, /rewind does the same.

Options:
${optionsHelp(REWIND_OPTIONS, 22)}

Exit status: 0 done, 1 nothing could be done (no such session or prompt, no checkpoint),
2 bad usage, 3 done but some files were skipped (conflicts, denied, links).

Example:
  agentmd rewind 2 both`;

export interface RewindCommandOptions extends Pick<SessionOptions, "permissions" | "cwd"> {
  readonly session?: string;
  readonly words: readonly string[];
  readonly json: boolean;
}

/** A model that is never asked: a rewind sends no request (and needs no API key). */
const NO_MODEL: Model = {
  turn: async () => ({ kind: "error", code: "invalid_request_error", message: "a rewind sends no request" }),
};

/** Runs `agentmd rewind`; returns the exit code. */
export async function runRewind(options: RewindCommandOptions, io: CliIo): Promise<number> {
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const request = options.words.length > 0 ? rewindWords(options.words) : undefined;
  if (request && "error" in request) {
    io.stderr.write(`agentmd rewind: ${printable(request.error, false)}\n`);
    return 2;
  }
  const id = options.session ?? latestSession(io, cwd);
  if (!id) {
    io.stderr.write("agentmd rewind: this project has no session yet\n");
    return 1;
  }
  const runner = await openRunner({ ...options, extra: { model: NO_MODEL } }, io, restrictedWithNotice(io));
  if (!runner) return 1;
  const style = styleFor(io.stdout, io.env);
  const shown = (file: string) => shownIn(runner.projectDir, file);
  try {
    if (!request) {
      const turns = await runner.turns(id);
      io.stdout.write(
        options.json
          ? `${JSON.stringify({ session: id, prompts: turns }, null, 2)}\n`
          : `session ${id}\n${turnsListing(turns, shown, style)}`,
      );
      return 0;
    }
    const report = await runner.rewind(id, request);
    io.stdout.write(
      options.json
        ? `${JSON.stringify({ session: id, ...report }, null, 2)}\n`
        : rewindReportText(report, request, shown, style),
    );
    return exitOf(report, request);
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr.write(`agentmd rewind: ${printable(e.message, false)}\n`);
    return 1;
  } finally {
    await runner.close();
  }
}

function exitOf(report: RewindReport, request: RewindRequest): number {
  if (!report.ok) return 1;
  return request.code && (report.files?.skipped.length ?? 0) > 0 ? 3 : 0;
}
