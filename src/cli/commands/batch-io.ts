import path from "node:path";
import type { BatchResult } from "../../batch/batch-result.js";
import { FINISHED_BEFORE } from "../../batch/batch-session-id.js";
import {
  type CheckedFile,
  checkItemFile,
  checkItemStream,
  type ItemSource,
} from "../../batch/item-source.js";
import { duration, type Progress, progressLine, progressTicker } from "../../batch/progress.js";
import type { CliIo } from "../io.js";
import type { RunIo } from "./run-command.js";

export { SESSION_BUSY_EXIT } from "./run-command.js";

// What `agentmd batch`, `enqueue` and `worker` share: reading a batch file, their usage lines,
// Ctrl-C, the summary line and the progress bar.

/**
 * Checks a batch file (or standard input) line by line and gives a source that reads its items
 * again as they are needed (never all held); prints its errors and gives undefined.
 */
export async function loadItems(file: string, io: RunIo): Promise<ItemSource | undefined> {
  let checked: CheckedFile;
  try {
    checked =
      file === "-" ? await checkItemStream(io.stdin ?? []) : await checkItemFile(path.resolve(io.cwd, file));
  } catch (e) {
    io.stderr.write(`agentmd: cannot read ${file}: ${(e as Error).message}\n`);
    return undefined;
  }
  const shown = file === "-" ? "stdin" : file;
  if (checked.kind === "errors") {
    for (const e of checked.errors) io.stderr.write(`${shown}:${e.line}: ${e.message}\n`);
    if (checked.count > checked.errors.length)
      io.stderr.write(`… and ${checked.count - checked.errors.length} more\n`);
    io.stderr.write(`agentmd: ${checked.count} bad line(s) in ${shown}; nothing was run\n`);
    return undefined;
  }
  if (checked.source.count === 0) {
    checked.source.close();
    io.stderr.write(`agentmd: ${shown} holds no item\n`);
    return undefined;
  }
  return checked.source;
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

/**
 * Standard output that stops taking the results (a full disk under `> results.jsonl`, a closed
 * file): the batch stops as at Ctrl-C (its running runs interrupted, their sessions released),
 * and says why once. `signal` aborts on Ctrl-C or on that failure; `failure()` says which.
 */
export function stopOnOutputFailure(
  io: CliIo,
  interrupted: AbortSignal,
): { signal: AbortSignal; failure: () => string | undefined; dispose: () => void } {
  const failed = new AbortController();
  let why: string | undefined;
  const onError = (e: Error) => {
    why ??= `cannot write the results to standard output: ${e.message}`;
    failed.abort();
  };
  io.stdout.on?.("error", onError);
  return {
    signal: AbortSignal.any([interrupted, failed.signal]),
    failure: () => why,
    dispose: () => io.stdout.off?.("error", onError),
  };
}

/** Which items were not run again, and why: `batch b: 3 skipped, finished before …: a, b, c`. */
export function skippedLine(batchId: string, skipped: Skipped): string {
  const shown = skipped.sample.join(", ");
  const more =
    skipped.count > skipped.sample.length ? `, and ${skipped.count - skipped.sample.length} more` : "";
  return `batch ${batchId}: ${skipped.count} skipped, ${FINISHED_BEFORE}: ${shown}${more} (--retry-failed runs the failed ones again)`;
}

/** Items not run again: how many, and the first ten ids (enough to name them; the rest are counted). */
export interface Skipped {
  readonly count: number;
  readonly sample: readonly string[];
}

/** Counts skipped items, keeping the first ten ids. */
export function skippedCounter() {
  let count = 0;
  const sample: string[] = [];
  return {
    add: (id: string) => {
      count++;
      if (sample.length < 10) sample.push(id);
    },
    get: (): Skipped => ({ count, sample }),
  };
}

export function summaryLine(batchId: string, p: Progress, ms: number): string {
  const skipped = p.skipped ? ` (${p.skipped} finished before)` : "";
  return `batch ${batchId}: ${p.done} done, ${p.failed} failed${skipped} of ${p.total} · ${p.tokens.toLocaleString("en-US")} tokens · $${p.costUsd.toFixed(4)} · ${duration(ms)}`;
}

/** Off a terminal, a progress line at least this often while the batch runs. */
const PLAIN_EVERY_MS = 10_000;

/**
 * JSON lines on standard output; a progress line on standard error: on a terminal, a bar redrawn
 * in place and cleared around each line so that the two never mix when both are the terminal;
 * elsewhere (a log), a line at every 5% and every 10 s between.
 */
export function progressBar(io: CliIo) {
  const live = io.stderr.isTTY === true;
  const due = progressTicker(PLAIN_EVERY_MS);
  let last: Progress | undefined;
  let shown = false;
  const clear = () => {
    if (shown) io.stderr.write("\r\x1b[K");
    shown = false;
  };
  const draw = () => {
    if (!last) return;
    if (!live) {
      if (due(last, Date.now()))
        io.stderr.write(`progress: ${progressLine(last, Date.now(), { bar: false })}\n`);
      return;
    }
    clear();
    io.stderr.write(progressLine(last, Date.now()));
    shown = true;
  };
  const timer = setInterval(draw, live ? 250 : PLAIN_EVERY_MS);
  timer.unref();
  return {
    draw: (p: Progress) => {
      last = p;
      if (!live) draw();
    },
    print: (r: BatchResult) => {
      clear();
      io.stdout.write(`${JSON.stringify(r)}\n`);
      if (live) draw();
    },
    /** A line on standard error, between two drawings of the bar. */
    note: (line: string) => {
      clear();
      io.stderr.write(`${line}\n`);
      if (live) draw();
    },
    end: () => {
      clearInterval(timer);
      if (live) draw();
      if (shown) io.stderr.write("\n");
      shown = false;
    },
  };
}
