import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RunIo } from "../commands/run-command.js";

export const HISTORY_SIZE = 500;

/** What was typed at the prompt, across conversations: `~/.agentmd/history`, newest last on disk. */
export function openHistory(env: RunIo["env"]): { lines: string[]; add(line: string): void } | undefined {
  const home = env.HOME;
  if (!home) return undefined;
  const file = path.join(home, ".agentmd", "history");
  let lines: string[] = [];
  try {
    lines = readFileSync(file, "utf8").split("\n").filter(Boolean).slice(-HISTORY_SIZE).reverse();
  } catch {
    // no history yet
  }
  return {
    lines,
    add(line) {
      try {
        mkdirSync(path.dirname(file), { recursive: true });
        appendFileSync(file, `${line.replace(/\n/g, " ")}\n`, { mode: 0o600 });
      } catch {
        // history is a convenience: a read-only home loses it, not the conversation
      }
    },
  };
}
