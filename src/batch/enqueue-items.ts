import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { BatchItem } from "./batch-item.js";
import { batchSessionId } from "./batch-session-id.js";
import { jobDataFor } from "./job-data.js";
import type { BatchKeys } from "./queue-keys.js";
import { readResults } from "./results-store.js";

export interface EnqueueOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly keys: BatchKeys;
  readonly batchId: string;
  readonly items: readonly BatchItem[];
  /** The project version a job of this item is for (it covers the memory files down to its `cwd`). */
  readonly versionOf: (item: BatchItem) => string;
  /** The trace context each job carries to its worker (`traceparent`). */
  readonly traceparent?: string;
}

export interface Enqueued {
  /** Jobs added now. */
  readonly added: number;
  /** Items whose job is on the queue already (waiting, delayed or running). */
  readonly queued: number;
  /** Items with a result: finished, not queued again. */
  readonly finished: number;
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
 * Puts a batch's items on the queue, each as one job whose id is its session's, so that enqueuing
 * again adds nothing twice: an item with a result is skipped, one already on the queue is left as
 * it is, and one whose job had failed (a refused project version, say) is queued anew.
 */
export async function enqueueItems(o: EnqueueOptions): Promise<Enqueued> {
  const finished = await readResults(
    o.redis,
    o.keys,
    o.items.map((i) => i.id),
  );
  let queued = 0;
  const jobs = [];
  for (const item of o.items) {
    if (finished.has(item.id)) continue;
    const jobId = batchSessionId(o.batchId, item.id);
    const state = await o.queue.getJobState(jobId);
    if (state === "failed" || state === "completed") await o.queue.remove(jobId);
    else if (state !== "unknown") {
      queued++;
      continue;
    }
    jobs.push({
      name: "run",
      data: jobDataFor(o.batchId, item, o.versionOf(item), o.traceparent),
      opts: { ...JOB_OPTIONS, jobId },
    });
  }
  for (let i = 0; i < jobs.length; i += 500) await o.queue.addBulk(jobs.slice(i, i + 500));
  return { added: jobs.length, queued, finished: finished.size };
}
