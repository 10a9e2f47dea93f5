import type { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { ZERO_USAGE } from "../model/models.js";
import type { BatchResult } from "./batch-result.js";
import { batchSessionId } from "./batch-session-id.js";
import { emptyProgress, type Progress, withResult } from "./progress.js";
import type { BatchKeys } from "./queue-keys.js";
import { readResults } from "./results-store.js";

export interface CollectOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  /** Wakes the collector when a job completes or fails, rather than at the next poll. */
  readonly events: QueueEvents;
  readonly keys: BatchKeys;
  readonly batchId: string;
  readonly ids: readonly string[];
  readonly signal: AbortSignal;
  readonly onResult: (result: BatchResult) => void;
  readonly onProgress?: (progress: Progress) => void;
  /** The longest wait between two looks at Redis (events can be missed over a reconnection). */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface Collected {
  readonly progress: Progress;
  /** Items without a result when the signal stopped the wait. */
  readonly pending: number;
}

/**
 * Waits for the result of every id of a batch and hands over each once: from the results hash (a
 * run that finished, now or before) or, for a job that failed without a result (refused by a
 * worker, or out of attempts), its failure. Returns when every id has one, or the signal aborts.
 */
export async function collectResults(o: CollectOptions): Promise<Collected> {
  const now = o.now ?? Date.now;
  const pending = new Map(o.ids.map((id) => [id, batchSessionId(o.batchId, id)]));
  let progress = emptyProgress(o.ids.length, now());
  // Jobs worth a look for a failure: all of them at first (some may have failed before we came).
  let suspects = new Set(pending.keys());
  let wake: () => void = () => {};
  const onCompleted = () => wake();
  const onFailed = ({ jobId }: { jobId: string }) => {
    for (const [id, job] of pending) if (job === jobId) suspects.add(id);
    wake();
  };
  o.events.on("completed", onCompleted);
  o.events.on("failed", onFailed);
  const onAbort = () => wake();
  o.signal.addEventListener("abort", onAbort);
  const take = (r: BatchResult) => {
    pending.delete(r.id);
    progress = withResult(progress, r);
    o.onResult(r);
  };
  try {
    for (let round = 0; pending.size > 0 && !o.signal.aborted; round++) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      for (const r of (await readResults(o.redis, o.keys, [...pending.keys()])).values()) take(r);
      if (round % 30 === 29) suspects = new Set(pending.keys());
      const looked = suspects;
      suspects = new Set();
      for (const id of looked) {
        const job = pending.get(id);
        if (job !== undefined && (await o.queue.getJobState(job)) === "failed")
          take(await jobFailure(o.queue, id, job));
      }
      const running = await o.queue.getActiveCount();
      o.onProgress?.({ ...progress, running });
      if (pending.size === 0) break;
      await Promise.race([woken, delay(o.pollMs ?? 1000)]);
    }
  } finally {
    o.events.off("completed", onCompleted);
    o.events.off("failed", onFailed);
    o.signal.removeEventListener("abort", onAbort);
  }
  return { progress, pending: pending.size };
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
