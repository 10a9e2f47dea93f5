import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { type BatchItem, parseBatchItems } from "../batch/batch-item.js";
import { type BatchResult, failed } from "../batch/batch-result.js";
import { batchIdOf } from "../batch/batch-session-id.js";
import { duration, type Progress, progressLine } from "../batch/progress.js";
import { DEFAULT_QUEUE } from "../batch/queue-keys.js";
import { BATCH_MAX_RETRIES, createRateGate } from "../batch/rate-gate.js";
import { runBatch } from "../batch/run-batch.js";
import { runnersByFolder } from "../batch/runners-by-folder.js";
import { findProjectRoot } from "../definitions/discover.js";
import { fileTranscripts, sessionsDir } from "../loop/transcript.js";
import { ConfigError } from "../shared/errors.js";
import type { CliIo } from "./io.js";
import type { RunIo } from "./run-command.js";

export const BATCH_HELP = `Usage: agentmd batch FILE.jsonl [options]

Runs many runs of the project's agents: one a line of FILE (- for standard input), e.g.
  {"id": "pr-12", "prompt": "Review pull request 12"}
  {"id": "pr-13", "line": "/review 13", "agent": "reviewer", "cwd": "repos/a"}
'prompt' is plain text; 'line' is typed as in the REPL (/name args); 'agent' runs that
subagent; 'cwd' is the working folder of the run's tools, relative to the project folder.

Every run has its own transcript (.agentmd/sessions/<batch>-<id>-<hash>.jsonl). Run the
same command again and finished ids are skipped, interrupted ones resumed from their
transcripts. Each finished run is one JSON line on standard output; on a terminal a
progress bar (done, failed, running, tokens, cost, ETA) is drawn on standard error.
A rate limit from the API (429 with retry-after) holds every run's next request and
halves how many runs go at once; steady answers raise it again, up to --concurrency.

Options:
  --concurrency N   runs at once (default 4)
  --batch-id NAME   the batch's name in session ids (default: FILE's name without .jsonl)
  --retry-failed    run the items that finished with another outcome than done again
  --model M         a model id or alias (sonnet, opus, haiku); overrides agent.md
  --cwd DIR         the folder the project is found from (default: the current folder)
  --redis URL       run on workers instead (see 'agentmd worker --help'): put the items on
                    the queue at URL (redis://host:port) and, with --wait, collect results
  --wait            with --redis: wait for every result and print it as it comes
  --queue NAME      with --redis: the queue's name (default ${DEFAULT_QUEUE})
  -h, --help        show this help

Example:
  agentmd batch reviews.jsonl --concurrency 8 > results.jsonl

Exit status: 0 every run done, 1 a run failed (or could not start), 2 bad usage or a bad
line in FILE, 130 interrupted (Ctrl-C; run the same command again to resume).`;

const DEFAULT_CONCURRENCY = 4;

/** Runs `agentmd batch`; returns the exit code. */
export async function batchCommand(args: readonly string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      concurrency: { type: "string" },
      "batch-id": { type: "string" },
      "retry-failed": { type: "boolean", default: false },
      model: { type: "string" },
      cwd: { type: "string" },
      redis: { type: "string" },
      wait: { type: "boolean", default: false },
      queue: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(`${BATCH_HELP}\n`);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    return usage(io, "batch", "give one batch file (FILE.jsonl, or - for standard input)");
  const concurrency = wholeNumber(values.concurrency, DEFAULT_CONCURRENCY);
  if (concurrency === undefined)
    return usage(io, "batch", "--concurrency must be a whole number from 1 to 1000");
  if (values.redis === undefined && (values.wait || values.queue !== undefined))
    return usage(io, "batch", "--wait and --queue go with --redis URL");
  if (values.redis !== undefined && !values.wait)
    return usage(io, "batch", "with --redis, add --wait (or use 'agentmd enqueue' to only queue the runs)");
  if (values.redis !== undefined && (values.model !== undefined || values["retry-failed"]))
    return usage(io, "batch", "--model and --retry-failed are for runs in this process, not with --redis");
  const cwd = path.resolve(io.cwd, values.cwd ?? ".");
  const items = await loadItems(file, io);
  if (!items) return 2;
  const batchId = batchIdOf(values["batch-id"] ?? (file === "-" ? "stdin" : path.basename(file)));
  const projectDir = findProjectRoot(cwd);
  if (values.redis !== undefined) {
    const { queueBatch } = await import("./enqueue-command.js");
    return queueBatch({ redisUrl: values.redis, queue: values.queue, batchId, items, projectDir }, io);
  }
  return localBatch(
    {
      items,
      batchId,
      projectDir,
      concurrency,
      ...(values.model !== undefined && { model: values.model }),
      retryFailed: values["retry-failed"],
    },
    io,
  );
}

interface LocalBatch {
  readonly items: readonly BatchItem[];
  readonly batchId: string;
  readonly projectDir: string;
  readonly concurrency: number;
  readonly model?: string;
  readonly retryFailed: boolean;
}

async function localBatch(o: LocalBatch, io: RunIo): Promise<number> {
  const gate = createRateGate({ max: o.concurrency });
  const runnerFor = runnersByFolder(o.projectDir, {
    env: io.env,
    model: {
      fetch: gate.wrap(),
      maxRetries: BATCH_MAX_RETRIES,
      ...(o.model !== undefined && { id: o.model }),
    },
  });
  try {
    runnerFor({});
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr.write(`agentmd: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const stop = interruptions(io, "batch: stopping; running runs are interrupted and resume next time");
  const bar = progressBar(io);
  let anyFailed = false;
  const started = Date.now();
  const summary = await runBatch({
    items: o.items,
    batchId: o.batchId,
    runnerFor,
    store: fileTranscripts(sessionsDir(o.projectDir)),
    gate,
    signal: stop.signal,
    retryFailed: o.retryFailed,
    onResult: (r) => {
      anyFailed ||= failed(r);
      bar.print(r);
    },
    onProgress: bar.draw,
  });
  stop.dispose();
  bar.end();
  const p = summary.progress;
  const left = summary.interrupted + summary.notStarted;
  io.stderr.write(
    `${summaryLine(o.batchId, p, Date.now() - started)}${left ? `, ${left} left (run the same command again to resume)` : ""}\n`,
  );
  if (stop.signal.aborted) return 130;
  return anyFailed ? 1 : 0;
}

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
    end: () => {
      if (timer) clearInterval(timer);
      draw();
      if (shown) io.stderr.write("\n");
      shown = false;
    },
  };
}
