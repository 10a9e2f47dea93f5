import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

export type Action =
  | { type: "expect"; text: string; timeout?: number }
  | { type: "send"; text: string }
  | { type: "touch"; path: string }
  | { type: "sleep"; seconds: number };

export interface TerminalRun {
  readonly ok: boolean;
  readonly output: string;
  readonly code: number | null;
  readonly missing?: string;
}

/** Drives `agentmd ARGS` (default `chat`) in a pseudo-terminal, as a person at a keyboard would. */
export function inTerminal(
  actions: Action[],
  cwd: string,
  env: Record<string, string>,
  args: readonly string[] = ["chat"],
): Promise<TerminalRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      [
        path.join(REPO_ROOT, "test/support/pty-run.py"),
        JSON.stringify(actions),
        process.execPath,
        path.join(REPO_ROOT, "bin/agentmd.js"),
        ...args,
      ],
      { cwd, env: { PATH: process.env.PATH ?? "", TERM: "xterm", NO_COLOR: "1", ...env } },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", () => resolve(JSON.parse(out)));
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence is what it matches
const ESCAPE = /^\x1b\[([0-9;?]*)([A-Za-z])/;

/**
 * The lines a terminal shows after `output`: `\r` returns to the line's start, `ESC[2K` clears
 * the line, `ESC[nA` moves up n lines, `ESC[J` clears from the cursor to the end of the screen,
 * other escape sequences (colour) are dropped, and text overwrites what is under it.
 */
export function screenOf(output: string): string[] {
  const lines: string[] = [""];
  let row = 0;
  let col = 0;
  const plain = output.replace(/\r\n/g, "\n");
  for (let i = 0; i < plain.length; i++) {
    const ch = plain[i] as string;
    if (ch === "\x1b") {
      const m = ESCAPE.exec(plain.slice(i));
      if (m) {
        if (m[2] === "K" && m[1] === "2") lines[row] = "";
        if (m[2] === "A") row = Math.max(0, row - Number(m[1] || 1));
        if (m[2] === "J") {
          lines[row] = (lines[row] as string).slice(0, col);
          lines.splice(row + 1);
        }
        i += m[0].length - 1;
      }
      continue;
    }
    if (ch === "\r") col = 0;
    else if (ch === "\n") {
      row++;
      if (row === lines.length) lines.push("");
      col = 0;
    } else {
      const line = lines[row] as string;
      lines[row] = line.slice(0, col) + ch + line.slice(col + 1);
      col++;
    }
  }
  return lines;
}
