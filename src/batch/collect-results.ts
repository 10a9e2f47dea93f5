import type { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { ZERO_USAGE } from "../model/models.js";
import type { BatchResult } from "./batch-result.js";
import { emptyProgress, type Progress, withResult } from "./progress.js";
import type { BatchKeys, WaitKeys } from "./queue-keys.js";
import { type Refusal, refusalOf } from "./version-refusal.js";
import {
  decodeEntry,
  markRefused,
  pendingChunks,
  type Taken,
  takeEntries,
  takeResults,
  type WaitEntry,
} from "./wait-set.js";

export interface CollectOptions {
  readonly redis: Redis;
  readonly queue: Queue;
  /** Wakes the collector when a job completes or fails, rather than at the next poll. */
  readonly events: QueueEvents;
  readonly keys: BatchKeys;
  /** The wait `enqueueItems` filled: the sessions whose results are awaited. */
  readonly wait: WaitKeys;
  /** How many items the batch has. */
  readonly total: number;
  /** The batch's finished list's length before the enqueue: what comes after is news. */
  readonly from: number;
  readonly signal: AbortSignal;
  readonly onResult: (result: BatchResult) => void;
  readonly onProgress?: (progress: Progress) => void;
  /** A job a worker of another project version put back: said once per pair of versions. */
  readonly onRefused?: (refusal: Refusal) => void;
  /** The ids of the items at these places of the batch file (to name jobs Redis lost). */
  readonly idsAt?: (ordinals: readonly number[]) => Promise<string[]>;
  /** The longest wait between two looks at Redis (events can be missed over a reconnection). */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface Collected {
  readonly progress: Progress;
  /** Items without a result when the signal stopped the wait (or the queue lost their jobs). */
  readonly pending: number;
  /** Items whose job is no longer on the queue and has no result: Redis lost them (restarted empty). */
  readonly lost: number;
  /** The ids of the first five of those. */
  readonly lostIds: readonly string[];
}

/** Every job still awaited is looked at this often (events can be missed over a reconnection). */
const SWEEP_MS = 30_000;

/**
 * Waits for the result of every job of a batch and hands over each once, as it comes: from the
 * batch's finished list (read on from where it was), and for a job that failed without a result
 * (refused by a worker, or out of attempts), its failure. What is awaited is kept in Redis (the
 * wait), not here: this process holds counts and one bit an item, so 10,000 items cost what ten
 * do. Returns when every job has one, when the signal aborts, or when jobs are gone from Redis
 * without a result (it restarted without its data): then nothing more would come for them.
 */
export async function collectResults(o: CollectOptions): Promise<Collected> {
  const now = o.now ?? Date.now;
  const handed = new Uint8Array(Math.ceil(o.total / 8));
  let progress = emptyProgress(o.total, now());
  let cursor = o.from;
  // Jobs worth a look (failed, or put back for their version), from events: few between two rounds.
  let suspects = new Set<string>();
  const refusals = new Map<string, Refusal | undefined>();
  const said = new Set<string>();
  let lost = 0;
  let lostIds: string[] = [];
  let wake: () => void = () => {};
  const onCompleted = () => wake();
  const onFailed = ({ jobId }: { jobId: string }) => {
    suspects.add(jobId);
    wake();
  };
  const onJobProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
    refusals.set(jobId, refusalOf(data));
  };
  o.events.on("completed", onCompleted);
  o.events.on("failed", onFailed);
  o.events.on("progress", onJobProgress);
  const onAbort = () => wake();
  o.signal.addEventListener("abort", onAbort);
  const count = () => progress.done + progress.failed;
  const hand = (entry: WaitEntry, r: BatchResult) => {
    if (entry.ordinal >= 0 && entry.ordinal < o.total) {
      const at = entry.ordinal >> 3;
      handed[at] = (handed[at] ?? 0) | (1 << (entry.ordinal & 7));
    }
    const result = entry.before ? { ...r, skipped: true as const } : r;
    progress = withResult(progress, result);
    o.onResult(result);
  };
  const handTaken = (taken: readonly Taken[]) => {
    for (const t of taken)
      hand(t.entry, t.result ?? failure(t.entry.id, t.sessionId, "its stored result could not be read"));
  };
  const take = async (ids: readonly string[]) =>
    handTaken(await takeResults(o.redis, o.wait, o.keys.results, ids));
  const readNews = async () => {
    for (;;) {
      const ids = await o.redis.lrange(o.keys.finished, cursor, cursor + 499);
      if (ids.length === 0) return;
      cursor += ids.length;
      await take(ids);
    }
  };
  /** Looks at these jobs: a failed one is handed over as a failure, a gone one is counted lost. */
  const look = async (ids: readonly string[]) => {
    await take(ids);
    const states = await Promise.all(ids.map((id) => o.queue.getJobState(id)));
    const failedIds = ids.filter((_, i) => states[i] === "failed");
    for (const [sid, entry] of await takeEntries(o.redis, o.wait, failedIds))
      hand(entry, await jobFailure(o.queue, entry.id, sid));
    // A job that finished leaves the queue after its result is stored: read again before calling one gone.
    const gone = ids.filter((_, i) => states[i] === "unknown");
    await take(gone);
    const still = await presentIn(o.redis, o.wait.pending, gone);
    lost += still.length;
    for (const [, e] of still) if (lostIds.length < 5) lostIds.push(e.id);
  };
  const sweep = async () => {
    for await (const chunk of pendingChunks(o.redis, o.wait)) await look(chunk.map(([sid]) => sid));
  };
  const noteRefusals = async () => {
    const seen = [...refusals];
    refusals.clear();
    const refused = seen.filter(([, r]) => r !== undefined).map(([id]) => id);
    const marked = new Set(await markRefused(o.redis, o.wait, refused, true));
    await markRefused(
      o.redis,
      o.wait,
      seen.filter(([, r]) => r === undefined).map(([id]) => id),
      false,
    );
    for (const [id, r] of seen) {
      const pair = r && `${r.jobVersion}\0${r.workerVersion}`;
      if (r && pair && marked.has(id) && !said.has(pair)) {
        said.add(pair);
        o.onRefused?.(r);
      }
    }
  };
  try {
    let swept = Number.NEGATIVE_INFINITY;
    while (count() < o.total && !o.signal.aborted) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      await readNews();
      if ((await o.redis.exists(o.keys.queued)) === 0 || (await o.redis.exists(o.wait.pending)) === 0) {
        // Redis lost the batch's data (restarted empty): what was not handed over will not come.
        lost = o.total - count();
        if (lost > 0) lostIds = await (o.idsAt?.(unhanded(handed, o.total, 5)) ?? Promise.resolve([]));
      } else if (now() - swept >= SWEEP_MS) {
        swept = now();
        await sweep();
      } else {
        const looked = [...suspects];
        suspects = new Set();
        await look(looked);
      }
      await noteRefusals();
      o.onProgress?.({
        ...progress,
        running: await runningOf(o.redis, o.queue, o.wait),
        waitingForVersion: await o.redis.scard(o.wait.refused),
      });
      if (count() >= o.total || lost > 0) break;
      await Promise.race([woken, delay(o.pollMs ?? 1000)]);
    }
  } finally {
    o.events.off("completed", onCompleted);
    o.events.off("failed", onFailed);
    o.events.off("progress", onJobProgress);
    o.signal.removeEventListener("abort", onAbort);
  }
  return { progress, pending: o.total - count(), lost, lostIds };
}

/** Of these sessions, those the wait still holds, with their entries. */
async function presentIn(redis: Redis, pending: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const values = await redis.hmget(pending, ...ids);
  const out: [string, WaitEntry][] = [];
  values.forEach((v, i) => {
    const id = ids[i];
    if (v !== null && id !== undefined) out.push([id, decodeEntry(v)]);
  });
  return out;
}

/** The batch's jobs running now: those of the queue's active ones (a few per worker) it waits for. */
async function runningOf(redis: Redis, queue: Queue, wait: WaitKeys): Promise<number> {
  const active = await redis.lrange(queue.keys.active ?? `bull:${queue.name}:active`, 0, -1);
  return (await presentIn(redis, wait.pending, active)).length;
}

/** The first `n` places not handed over. */
function unhanded(handed: Uint8Array, total: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < total && out.length < n; i++)
    if ((((handed[i >> 3] ?? 0) >> (i & 7)) & 1) === 0) out.push(i);
  return out;
}

async function jobFailure(queue: Queue, id: string, jobId: string): Promise<BatchResult> {
  const job = await queue.getJob(jobId);
  return failure(id, jobId, `the job failed: ${job?.failedReason ?? "no reason given"}`);
}

function failure(id: string, sessionId: string, message: string): BatchResult {
  return { id, sessionId, outcome: "error", text: "", turns: 0, usage: ZERO_USAGE, costUsd: 0, message };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
