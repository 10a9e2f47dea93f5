import type { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { ZERO_USAGE } from "../model/models.js";
import type { BatchResult } from "./batch-result.js";
import type { QueuedItem } from "./enqueue-items.js";
import { emptyProgress, type Progress, withResult } from "./progress.js";
import type { BatchKeys } from "./queue-keys.js";
import { readResults } from "./results-store.js";
import { type Refusal, refusalOf } from "./version-refusal.js";

export interface CollectOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  /** Wakes the collector when a job completes or fails, rather than at the next poll. */
  readonly events: QueueEvents;
  readonly keys: BatchKeys;
  /** The batch's items and their jobs (`enqueueItems`). */
  readonly jobs: readonly QueuedItem[];
  /** Sessions whose results were there before this enqueue: handed over marked `skipped`. */
  readonly finishedBefore?: ReadonlySet<string>;
  readonly signal: AbortSignal;
  readonly onResult: (result: BatchResult) => void;
  readonly onProgress?: (progress: Progress) => void;
  /** A job a worker of another project version put back: said once per pair of versions. */
  readonly onRefused?: (refusal: Refusal) => void;
  /** The longest wait between two looks at Redis (events can be missed over a reconnection). */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface Collected {
  readonly progress: Progress;
  /** Items without a result when the signal stopped the wait (or the queue lost their jobs). */
  readonly pending: number;
  /** Items whose job is no longer on the queue and has no result: Redis lost them (restarted empty). */
  readonly lost: readonly string[];
}

/**
 * Waits for the result of every job of a batch and hands over each once: from the results hash (a
 * run that finished, now or before) or, for a job that failed without a result (refused by a
 * worker, or out of attempts), its failure. Returns when every job has one, when the signal
 * aborts, or when jobs are gone from Redis without a result (it restarted without its data): then
 * nothing more would come for them, and waiting would be for ever.
 */
export async function collectResults(o: CollectOptions): Promise<Collected> {
  const now = o.now ?? Date.now;
  const pending = new Map(o.jobs.map((j) => [j.sessionId, j.id]));
  let progress = emptyProgress(o.jobs.length, now());
  // Jobs worth a look (failed, gone, waiting for a version): all at first, then those events name.
  let suspects = new Set(pending.keys());
  const waiting = new Map<string, Refusal>();
  const said = new Set<string>();
  let lost: string[] = [];
  let wake: () => void = () => {};
  const onCompleted = () => wake();
  const onFailed = ({ jobId }: { jobId: string }) => {
    suspects.add(jobId);
    wake();
  };
  const noteRefusal = (jobId: string, data: unknown) => {
    const refusal = refusalOf(data);
    if (!refusal || !pending.has(jobId)) {
      waiting.delete(jobId);
      return;
    }
    waiting.set(jobId, refusal);
    const pair = `${refusal.jobVersion}\0${refusal.workerVersion}`;
    if (!said.has(pair)) {
      said.add(pair);
      o.onRefused?.(refusal);
    }
  };
  const onJobProgress = ({ jobId, data }: { jobId: string; data: unknown }) => noteRefusal(jobId, data);
  o.events.on("completed", onCompleted);
  o.events.on("failed", onFailed);
  o.events.on("progress", onJobProgress);
  const onAbort = () => wake();
  o.signal.addEventListener("abort", onAbort);
  const take = (r: BatchResult) => {
    pending.delete(r.sessionId);
    waiting.delete(r.sessionId);
    const result = o.finishedBefore?.has(r.sessionId) ? { ...r, skipped: true as const } : r;
    progress = withResult(progress, result);
    o.onResult(result);
  };
  const takeResults = async (ids: Iterable<string>) => {
    for (const r of (await readResults(o.redis, o.keys, [...ids])).values()) take(r);
  };
  try {
    for (let round = 0; pending.size > 0 && !o.signal.aborted; round++) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      await takeResults(pending.keys());
      // The batch's mark gone: Redis lost its data; every job left is worth a look now.
      if (round % 30 === 29 || (await o.redis.exists(o.keys.queued)) === 0)
        suspects = new Set(pending.keys());
      const looked = suspects;
      suspects = new Set();
      const gone: string[] = [];
      for (const jobId of looked) {
        const id = pending.get(jobId);
        if (id === undefined) continue;
        const state = await o.queue.getJobState(jobId);
        if (state === "failed") take(await jobFailure(o.queue, id, jobId));
        else if (state === "unknown") gone.push(jobId);
        else if (state === "delayed") noteRefusal(jobId, (await o.queue.getJob(jobId))?.progress);
      }
      // A job that finished leaves the queue after its result is stored: read again before
      // calling one gone.
      await takeResults(gone);
      lost = gone.filter((jobId) => pending.has(jobId)).map((jobId) => pending.get(jobId) ?? jobId);
      const running = await o.queue.getActiveCount();
      o.onProgress?.({ ...progress, running, waitingForVersion: waiting.size });
      if (pending.size === 0 || lost.length > 0) break;
      await Promise.race([woken, delay(o.pollMs ?? 1000)]);
    }
  } finally {
    o.events.off("completed", onCompleted);
    o.events.off("failed", onFailed);
    o.events.off("progress", onJobProgress);
    o.signal.removeEventListener("abort", onAbort);
  }
  return { progress, pending: pending.size, lost };
}

async function jobFailure(queue: Queue, id: string, jobId: string): Promise<BatchResult> {
  const job = await queue.getJob(jobId);
  return {
    id,
    sessionId: jobId,
    outcome: "error",
    text: "",
    turns: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
    message: `the job failed: ${job?.failedReason ?? "no reason given"}`,
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
