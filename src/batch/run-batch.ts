import { setMaxListeners } from "node:events";
import PQueue from "p-queue";
import type { Runner } from "../invocation/runner.js";
import type { TranscriptStore } from "../loop/transcript.js";
import { ZERO_USAGE } from "../model/models.js";
import type { BatchItem } from "./batch-item.js";
import type { BatchResult } from "./batch-result.js";
import { batchSessionId } from "./batch-session-id.js";
import { emptyProgress, type Progress, withResult } from "./progress.js";
import type { RateGate } from "./rate-gate.js";
import { runItem } from "./run-item.js";

export interface RunBatchOptions {
  /** Taken as the pool has room: a file's items are read as they run, never all held. */
  readonly items: AsyncIterable<BatchItem> | readonly BatchItem[];
  /** How many items there are (default: the array's length). */
  readonly total?: number;
  readonly batchId: string;
  /** The project version an item runs with (part of what makes it the same work: its session). */
  readonly versionOf: (item: BatchItem) => string;
  /** The runner an item runs with (one per working folder); may throw a `ConfigError`. */
  readonly runnerFor: (item: BatchItem) => Runner;
  /** Where the items' transcripts are (what the runners write to). */
  readonly store: TranscriptStore;
  /** The gate every runner's requests pass: its limit is how many runs go at once. */
  readonly gate: RateGate;
  readonly signal: AbortSignal;
  readonly retryFailed?: boolean;
  /** Each finished item, once: run now, or finished before (`skipped`). */
  readonly onResult: (result: BatchResult) => void;
  /** An item another process is running now (its session is held): not run, no result. */
  readonly onHeld?: (item: BatchItem, message: string) => void;
  readonly onProgress?: (progress: Progress) => void;
  readonly now?: () => number;
}

export interface BatchSummary {
  readonly progress: Progress;
  /** Runs cut off by the signal, and items never started: a run of the batch again does them. */
  readonly interrupted: number;
  readonly notStarted: number;
  /** Items another process was running: left to it (a run of the batch again collects them). */
  readonly held: number;
}

/**
 * Runs a batch in this process: every item in its own session, at most the gate's limit at once
 * (one pool for the batch), items that finished before skipped, interrupted ones continued, items
 * another process runs at this moment left to it (each item's session has one writer). When
 * `signal` aborts, no item starts and the running ones stop (their transcripts say where).
 * Contract: never rejects; an item that cannot run (its runner fails to build) is a failed result.
 */
export async function runBatch(o: RunBatchOptions): Promise<BatchSummary> {
  const now = o.now ?? Date.now;
  const max = o.gate.limit;
  const pool = new PQueue({ concurrency: max });
  const total = o.total ?? (Array.isArray(o.items) ? o.items.length : 0);
  let progress = emptyProgress(total, now());
  let running = 0;
  let interrupted = 0;
  let started = 0;
  let held = 0;
  const report = () =>
    o.onProgress?.({ ...progress, running, limit: o.gate.limit, max, pausedUntil: o.gate.pausedUntil });
  const stop = () => pool.clear();
  // Each running item listens to the batch's signal (and stops listening when it ends): as many
  // listeners as runs at once, which is no leak for Node to warn about on standard error.
  setMaxListeners(0, o.signal);
  o.signal.addEventListener("abort", stop, { once: true });

  const runOne = async (item: BatchItem) => {
    if (o.signal.aborted) return;
    started++;
    running++;
    report();
    let sessionId = "";
    let result: BatchResult | undefined;
    try {
      sessionId = batchSessionId(o.batchId, item, o.versionOf(item));
      const run = await runItem(o.runnerFor(item), o.store, item, sessionId, {
        signal: o.signal,
        ...(o.retryFailed && { retryFailed: true }),
      });
      if (run.kind === "interrupted") interrupted++;
      else if (run.kind === "unrecorded") result = run.result;
      else if (run.kind === "held") {
        held++;
        o.onHeld?.(item, run.message);
      } else result = run.ran ? run.result : { ...run.result, skipped: true };
    } catch (e) {
      result = failure(item, sessionId, e);
    } finally {
      running--;
      // A limit the gate lowered (or raised) applies from the next item on.
      pool.concurrency = Math.max(1, o.gate.limit);
      if (result) progress = withResult(progress, result);
      report();
      if (result) o.onResult(result);
    }
  };

  try {
    // Only a few items wait in the pool: the next is read when one starts. Items at hand are
    // added at once (the first runs start together), a file's as it is read.
    const room = () =>
      pool.size < Math.max(1, pool.concurrency) ? undefined : pool.onSizeLessThan(pool.concurrency);
    const add = (item: BatchItem) => {
      if (!o.signal.aborted) void pool.add(() => runOne(item));
    };
    if (Array.isArray(o.items))
      for (const item of o.items as readonly BatchItem[]) {
        const full = room();
        if (full) await full;
        add(item);
      }
    else
      for await (const item of o.items) {
        await room();
        add(item);
        if (o.signal.aborted) break;
      }
  } finally {
    await pool.onIdle();
    o.signal.removeEventListener("abort", stop);
  }
  report();
  return { progress, interrupted, notStarted: total - started, held };
}

function failure(item: BatchItem, sessionId: string, e: unknown): BatchResult {
  return {
    id: item.id,
    sessionId,
    outcome: "error",
    text: "",
    turns: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
    message: e instanceof Error ? e.message : String(e),
  };
}
