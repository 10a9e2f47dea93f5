import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { BatchItem } from "./batch-item.js";
import { failed } from "./batch-result.js";
import { batchSessionId } from "./batch-session-id.js";
import { jobDataFor } from "./job-data.js";
import type { BatchKeys } from "./queue-keys.js";
import { dropFailedResult, readResults } from "./results-store.js";

export interface EnqueueOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly keys: BatchKeys;
  readonly batchId: string;
  readonly items: readonly BatchItem[];
  /** The project version a job of this item is for (it covers the memory files down to its `cwd`). */
  readonly versionOf: (item: BatchItem) => string;
  /** Queue again the items whose result is a failure (their session continues). */
  readonly retryFailed?: boolean;
  /** The trace context each job carries to its worker (`traceparent`). */
  readonly traceparent?: string;
}

/** An item of the batch and its job (its session). */
export interface QueuedItem {
  readonly id: string;
  readonly sessionId: string;
}

export interface Enqueued {
  /** Jobs added now. */
  readonly added: number;
  /** Items whose job is on the queue already (waiting, delayed or running). */
  readonly queued: number;
  /** Items with a result: finished before with the same prompt, agent and version, not queued again. */
  readonly finished: number;
  /** Items whose failed result was taken out and queued again (`retryFailed`). */
  readonly retried: number;
  /** Every item's job, in the file's order. */
  readonly jobs: readonly QueuedItem[];
  /** The session ids of the items that had finished before (their results are there already). */
  readonly finishedBefore: ReadonlySet<string>;
}

/**
 * How a job is kept: a failure that is not the run's (Redis gone, the worker stopping) is tried
 * again; a run's own failure is a result, not a failed job. A finished job leaves the queue (its
 * result is in the results hash); a failed one stays, for `batch --wait` and for inspection.
 */
export const JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: true,
  removeOnFail: false,
} as const;

/**
 * Puts a batch's items on the queue, each as one job whose id is its session's (see
 * `batchSessionId`: a changed item is another job), so that enqueuing again adds nothing twice: an
 * item with a result is skipped (with `retryFailed`, a failed one is queued again), one already on
 * the queue is left as it is, and one whose job had failed is queued anew.
 */
export async function enqueueItems(o: EnqueueOptions): Promise<Enqueued> {
  const items = o.items.map((item) => ({
    item,
    sessionId: batchSessionId(o.batchId, item, o.versionOf(item)),
  }));
  const results = await readResults(
    o.redis,
    o.keys,
    items.map((i) => i.sessionId),
  );
  await o.redis.set(o.keys.queued, String(Date.now()));
  let queued = 0;
  let retried = 0;
  const finishedBefore = new Set<string>();
  const jobs = [];
  for (const { item, sessionId: jobId } of items) {
    const result = results.get(jobId);
    const retry = o.retryFailed === true && result !== undefined && failed(result);
    if (retry && (await dropFailedResult(o.redis, o.keys, jobId))) retried++;
    else if (result !== undefined) {
      finishedBefore.add(jobId);
      continue;
    }
    const state = await o.queue.getJobState(jobId);
    if (state === "failed" || state === "completed") await o.queue.remove(jobId);
    else if (state !== "unknown") {
      queued++;
      continue;
    }
    jobs.push({
      name: "run",
      data: jobDataFor(o.batchId, item, o.versionOf(item), {
        retryFailed: retry,
        traceparent: o.traceparent,
      }),
      opts: { ...JOB_OPTIONS, jobId },
    });
  }
  for (let i = 0; i < jobs.length; i += 500) await o.queue.addBulk(jobs.slice(i, i + 500));
  return {
    added: jobs.length,
    queued,
    finished: finishedBefore.size,
    retried,
    jobs: items.map(({ item, sessionId }) => ({ id: item.id, sessionId })),
    finishedBefore,
  };
}
