import { readFileSync } from "node:fs";
import path from "node:path";
import { type BatchItem, parseBatchItems } from "../batch/batch-item.js";
import type { BatchResult } from "../batch/batch-result.js";
import { FINISHED_BEFORE } from "../batch/batch-session-id.js";
import { duration, type Progress, progressLine } from "../batch/progress.js";
import type { CliIo } from "./io.js";
import type { RunIo } from "./run-command.js";

export { SESSION_BUSY_EXIT } from "./run-command.js";

// What `agentmd batch`, `enqueue` and `worker` share: reading a batch file, their usage lines,
// Ctrl-C, the summary line and the progress bar.

/** Reads the items of a batch file (or standard input); prints its errors and gives undefined. */
export async function loadItems(file: string, io: RunIo): Promise<BatchItem[] | undefined> {
  let text: string;
  try {
    text = file === "-" ? await readAll(io) : readFileSync(path.resolve(io.cwd, file), "utf8");
  } catch (e) {
    io.stderr.write(`agentmd: cannot read ${file}: ${(e as Error).message}\n`);
    return undefined;
  }
  const { items, errors } = parseBatchItems(text);
  const shown = file === "-" ? "stdin" : file;
  for (const e of errors.slice(0, 20)) io.stderr.write(`${shown}:${e.line}: ${e.message}\n`);
  if (errors.length > 20) io.stderr.write(`… and ${errors.length - 20} more\n`);
  if (errors.length > 0) {
    io.stderr.write(`agentmd: ${errors.length} bad line(s) in ${shown}; nothing was run\n`);
    return undefined;
  }
  if (items.length === 0) {
    io.stderr.write(`agentmd: ${shown} holds no item\n`);
    return undefined;
  }
  return items;
}

async function readAll(io: RunIo): Promise<string> {
  if (!io.stdin) return "";
  let text = "";
  for await (const chunk of io.stdin) text += chunk.toString();
  return text;
}

export function usage(io: CliIo, command: string, message: string): number {
  io.stderr.write(`agentmd ${command}: ${message}\nRun 'agentmd ${command} --help' for its options.\n`);
  return 2;
}

/** `undefined` for a value that is not a whole number from 1 to 1000. */
export function wholeNumber(value: string | undefined, fallback: number, max = 1000): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : undefined;
}

/** Ctrl-C once: the signal aborts (stop cleanly); twice: leave at once. */
export function interruptions(io: RunIo, notice: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  let count = 0;
  const unhook = io.onInterrupt?.(() => {
    count++;
    if (count > 1) process.exit(130);
    io.stderr.write(`\n${notice} (Ctrl-C again to leave at once)\n`);
    controller.abort();
  });
  return { signal: controller.signal, dispose: () => unhook?.() };
}

/** Which items were not run again, and why: `batch b: 3 skipped, finished before …: a, b, c`. */
export function skippedLine(batchId: string, ids: readonly string[]): string {
  const shown = ids.slice(0, 10).join(", ");
  const more = ids.length > 10 ? `, and ${ids.length - 10} more` : "";
  return `batch ${batchId}: ${ids.length} skipped, ${FINISHED_BEFORE}: ${shown}${more} (--retry-failed runs the failed ones again)`;
}

export function summaryLine(batchId: string, p: Progress, ms: number): string {
  const skipped = p.skipped ? ` (${p.skipped} finished before)` : "";
  return `batch ${batchId}: ${p.done} done, ${p.failed} failed${skipped} of ${p.total} · ${p.tokens.toLocaleString("en-US")} tokens · $${p.costUsd.toFixed(4)} · ${duration(ms)}`;
}

/**
 * JSON lines on standard output; on a terminal, a progress bar on standard error, redrawn in place
 * and cleared around each line so that the two never mix when both are the terminal.
 */
export function progressBar(io: CliIo) {
  const live = io.stderr.isTTY === true;
  let last: Progress | undefined;
  let shown = false;
  const clear = () => {
    if (shown) io.stderr.write("\r\x1b[K");
    shown = false;
  };
  const draw = () => {
    if (!live || !last) return;
    clear();
    io.stderr.write(progressLine(last, Date.now()));
    shown = true;
  };
  const timer = live ? setInterval(draw, 250) : undefined;
  timer?.unref();
  return {
    draw: (p: Progress) => {
      last = p;
    },
    print: (r: BatchResult) => {
      clear();
      io.stdout.write(`${JSON.stringify(r)}\n`);
      draw();
    },
    /** A line on standard error, between two drawings of the bar. */
    note: (line: string) => {
      clear();
      io.stderr.write(`${line}\n`);
      draw();
    },
    end: () => {
      if (timer) clearInterval(timer);
      draw();
      if (shown) io.stderr.write("\n");
      shown = false;
    },
  };
}
