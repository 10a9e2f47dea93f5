import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { BatchItem } from "./batch-item.js";
import { failed } from "./batch-result.js";
import { batchSessionId } from "./batch-session-id.js";
import { jobDataFor } from "./job-data.js";
import type { BatchKeys, WaitKeys } from "./queue-keys.js";
import { dropFailedResult, readResults } from "./results-store.js";
import { addPending, type WaitEntry } from "./wait-set.js";

export interface EnqueueOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly keys: BatchKeys;
  readonly batchId: string;
  /** The run of the batch these jobs are queued in (its budget's, its results'; `keys` are its). */
  readonly run?: string;
  /** The batch's items, read as they are queued (a chunk at a time: never all held). */
  readonly items: AsyncIterable<BatchItem> | readonly BatchItem[];
  /** The project version a job of this item is for (it covers the memory files down to its `cwd`). */
  readonly versionOf: (item: BatchItem) => string;
  /** Queue again the items whose result is a failure (their session continues). */
  readonly retryFailed?: boolean;
  /** The trace context each job carries to its worker (`traceparent`). */
  readonly traceparent?: string;
  /** For `batch --wait`: every item's session goes into this wait (see `wait-set.ts`). */
  readonly wait?: WaitKeys;
}

export interface Enqueued {
  /** Items read. */
  readonly total: number;
  /** Jobs added now. */
  readonly added: number;
  /** Items whose job is on the queue already (waiting, delayed or running). */
  readonly queued: number;
  /** Items with a result: finished before with the same prompt, agent and version, not queued again. */
  readonly finished: number;
  /** Items whose failed result was taken out and queued again (`retryFailed`). */
  readonly retried: number;
  /** The first ten ids of the items that had finished before (to name them; the rest are counted). */
  readonly finishedSample: readonly string[];
}

/** Items are looked at and added this many at a time. */
const CHUNK = 500;

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
 * the queue is left as it is, and one whose job had failed is queued anew. The items are read and
 * added a chunk at a time (one round of Redis calls each), so 10,000 items cost what 500 do.
 */
export async function enqueueItems(o: EnqueueOptions): Promise<Enqueued> {
  await o.redis.set(o.keys.queued, String(Date.now()));
  const tally = { total: 0, added: 0, queued: 0, finished: 0, retried: 0, finishedSample: [] as string[] };
  let chunk: BatchItem[] = [];
  for await (const item of o.items) {
    chunk.push(item);
    if (chunk.length === CHUNK) {
      await enqueueChunk(o, chunk, tally);
      chunk = [];
    }
  }
  await enqueueChunk(o, chunk, tally);
  return tally;
}

type Tally = { -readonly [K in keyof Enqueued]: K extends "finishedSample" ? string[] : number };

async function enqueueChunk(o: EnqueueOptions, items: readonly BatchItem[], t: Tally): Promise<void> {
  if (items.length === 0) return;
  const first = t.total;
  t.total += items.length;
  const sessions = items.map((item) => batchSessionId(o.batchId, item, o.versionOf(item), o.run));
  const results = await readResults(o.redis, o.keys, sessions);
  const entries: (readonly [string, WaitEntry])[] = [];
  const toLook: { item: BatchItem; jobId: string; retry: boolean }[] = [];
  for (const [i, item] of items.entries()) {
    const jobId = sessions[i] ?? "";
    const result = results.get(jobId);
    const retry = o.retryFailed === true && result !== undefined && failed(result);
    let before = false;
    if (retry && (await dropFailedResult(o.redis, o.keys, jobId))) t.retried++;
    else if (result !== undefined) {
      before = true;
      t.finished++;
      if (t.finishedSample.length < 10) t.finishedSample.push(item.id);
    }
    entries.push([jobId, { ordinal: first + i, id: item.id, before }]);
    if (!before) toLook.push({ item, jobId, retry });
  }
  if (o.wait) await addPending(o.redis, o.wait, entries);
  const states = await Promise.all(toLook.map((l) => o.queue.getJobState(l.jobId)));
  const jobs = [];
  for (const [i, { item, jobId, retry }] of toLook.entries()) {
    const state = states[i];
    if (state === "failed" || state === "completed") await o.queue.remove(jobId);
    else if (state !== "unknown") {
      t.queued++;
      continue;
    }
    jobs.push({
      name: "run",
      data: jobDataFor(o.batchId, item, o.versionOf(item), {
        retryFailed: retry,
        traceparent: o.traceparent,
        ...(o.run && { run: o.run }),
      }),
      opts: { ...JOB_OPTIONS, jobId },
    });
  }
  if (jobs.length > 0) await o.queue.addBulk(jobs);
  t.added += jobs.length;
}
