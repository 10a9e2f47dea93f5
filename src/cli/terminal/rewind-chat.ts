import path from "node:path";
import type { Runner } from "../../invocation/runner.js";
import { SessionError } from "../../loop/transcript.js";
import type { CliIo, Style } from "../io.js";
import { forkSession } from "../stream-json/sdk-sessions.js";
import { printable } from "./printable.js";
import { rewindReportText, rewindWords, turnsListing } from "./rewind-lines.js";

/** What `/rewind` needs of the chat: its session, where to write, and how to ask a line. */
export interface RewindChat {
  readonly session: string | undefined;
  readonly io: CliIo;
  readonly style: Style;
  /** The next line typed (or piped), undefined at the end of input. */
  readonly ask: (question: string) => Promise<string | undefined>;
}

/**
 * `/rewind`: the conversation's prompts with the files each changed, then a question (which prompt,
 * and code, conversation or both); `/rewind N code|conversation|both [--force]` at once.
 */
export async function rewindInChat(chat: RewindChat, runner: Runner, arg: string): Promise<void> {
  const { io, style } = chat;
  if (!chat.session) {
    io.stdout.write(`${style.dim("nothing to rewind yet: no prompt has run in this conversation")}\n`);
    return;
  }
  const shown = (file: string) => shownIn(runner.projectDir, file);
  try {
    let words = arg.split(/\s+/).filter(Boolean);
    if (words.length === 0) {
      io.stdout.write(turnsListing(await runner.turns(chat.session), shown, style));
      const answer = await chat.ask(
        `${style.dim("rewind to just before which prompt? N code|conversation|both (Enter: cancel)")} `,
      );
      words = (answer ?? "").trim().split(/\s+/).filter(Boolean);
      if (words.length === 0) {
        io.stdout.write(`${style.dim("nothing rewound")}\n`);
        return;
      }
    }
    const request = rewindWords(words);
    if ("error" in request) {
      io.stdout.write(`${style.yellow(printable(request.error, false))}\n`);
      return;
    }
    const report = await runner.rewind(chat.session, request);
    io.stdout.write(rewindReportText(report, request, shown, style));
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stdout.write(`${style.yellow("cannot rewind:")} ${printable(e.message, false)}\n`);
  }
}

/** A file as it is shown: relative to the project when inside it. */
export function shownIn(projectDir: string, file: string): string {
  const rel = path.relative(projectDir, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

/** `chat --fork-session`: the session resumed, copied under a new id; undefined (said) when it cannot be. */
export async function forkedChat(io: CliIo, runner: Runner, from: string): Promise<string | undefined> {
  try {
    return await forkSession(runner, from);
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr.write(`agentmd: ${printable(e.message)}\n`);
    return undefined;
  }
}
