import { existsSync } from "node:fs";
import { type JobType, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type BatchResult, batchResultOf } from "../batch/batch-result.js";
import { bullConnection, connectionWarnings, connectRedis } from "../batch/connect-redis.js";
import { jobDataOf } from "../batch/job-data.js";
import { queueKeys } from "../batch/queue-keys.js";
import { redisTranscripts } from "../batch/redis-transcripts.js";
import { paidBy } from "../batch/session-state.js";
import { refusalOf } from "../batch/version-refusal.js";
import type { RunEvent } from "../loop/events.js";
import { sessionFile } from "../loop/transcript.js";
import type { SessionInput } from "./session-page.js";
import type { BatchPage, BatchRow, ItemRow } from "./view-types.js";

/** A batch page lists this many items at most (running, failed and waiting ones first). */
const MAX_ITEMS = 500;
/** Jobs read of each state of the queue (a queue holds more only while a huge batch waits). */
const MAX_JOBS = 5000;
const STATES: readonly JobType[] = ["active", "waiting", "prioritized", "delayed", "failed"];

/** What the view reads of a queue: its batches, their items, the sessions kept in Redis. */
export interface QueueView {
  readonly name: string;
  batches(): Promise<BatchRow[]>;
  /** Undefined for a batch the queue does not know. */
  batch(name: string): Promise<BatchPage | undefined>;
  /** A session kept in Redis; throws `SessionError` when there is none. */
  session(id: string): Promise<SessionInput>;
  stamp(id: string): Promise<string>;
  close(): Promise<void>;
}

interface QueuedJob {
  readonly sessionId: string;
  readonly id: string;
  readonly batch: string;
  readonly state: string;
  readonly message?: string;
}

/** What the readers below share. */
interface Cx {
  readonly redis: Redis;
  readonly queue: Queue;
  readonly keys: ReturnType<typeof queueKeys>;
  readonly transcripts: ReturnType<typeof redisTranscripts>;
  readonly prefix: string;
  readonly sessionsDir: string;
}

/** Opens a queue for reading only: nothing is added, taken or changed. Throws `RedisUnavailableError`. */
export async function openQueueView(
  url: string,
  name: string,
  sessionsDir: string,
  warn: (line: string) => void,
): Promise<QueueView> {
  const onError = connectionWarnings(warn);
  const redis = await connectRedis(url, onError);
  const queue = new Queue(name, { connection: bullConnection(url) });
  queue.on("error", onError);
  const keys = queueKeys(name);
  const cx: Cx = {
    redis,
    queue,
    keys,
    transcripts: redisTranscripts(redis, keys.transcript),
    prefix: `agentmd:${name}:`,
    sessionsDir,
  };
  return {
    name,
    async batches() {
      const [names, onQueue] = await Promise.all([batchNames(cx), queuedJobs(cx)]);
      for (const j of onQueue) if (!names.includes(j.batch)) names.push(j.batch);
      return Promise.all(names.map((n) => batchRow(cx, n, onQueue)));
    },
    async batch(batch) {
      const onQueue = await queuedJobs(cx);
      const known = (await batchNames(cx)).includes(batch) || onQueue.some((j) => j.batch === batch);
      if (!known) return undefined;
      const items = await itemRows(cx, batch, onQueue);
      const shown = items.slice(0, MAX_ITEMS);
      const withSessions = await Promise.all(
        shown.map(async (i) => {
          const session = await sessionOf(cx, i.sessionId);
          return session ? { ...i, session } : i;
        }),
      );
      return {
        batch: await batchRow(cx, batch, onQueue),
        items: withSessions,
        more: items.length - shown.length,
      };
    },
    async session(id) {
      const read = await cx.transcripts.read(id);
      const live = (await queue.getJobState(id)) === "active";
      return { id, source: "queue", events: read.events, skipped: read.skipped, live };
    },
    async stamp(id) {
      const [length, state] = await Promise.all([redis.llen(keys.transcript(id)), queue.getJobState(id)]);
      return `${length}:${state}`;
    },
    async close() {
      await queue.close().catch(() => {});
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** The batches the queue's keys name (queued, with totals, or with results). */
async function batchNames(cx: Cx): Promise<string[]> {
  const names = new Set<string>();
  for (const kind of ["queued", "totals", "results"]) {
    const found = await scan(cx.redis, `${cx.prefix}${kind}:*`);
    for (const key of found) names.add(key.slice(`${cx.prefix}${kind}:`.length));
  }
  return [...names].sort();
}

/** The jobs on the queue now (finished ones leave it: their results are in the results hash). */
async function queuedJobs(cx: Cx): Promise<QueuedJob[]> {
  const out: QueuedJob[] = [];
  for (const state of STATES) {
    for (const job of await cx.queue.getJobs([state], 0, MAX_JOBS - 1)) {
      const data = jobDataOf(job?.data);
      if (!job?.id || typeof data === "string") continue;
      const refused = state === "delayed" && refusalOf(job.progress);
      out.push({
        sessionId: job.id,
        id: data.item.id,
        // A run's batch, as its keys name it (`<batch>:<run>`).
        batch: data.run ? `${data.batch}:${data.run}` : data.batch,
        state:
          state === "active"
            ? "running"
            : state === "failed"
              ? "failed"
              : refused
                ? "waiting for its version"
                : "waiting",
        ...(state === "failed" && { message: job.failedReason }),
      });
    }
  }
  return out;
}

async function batchRow(cx: Cx, batch: string, onQueue: readonly QueuedJob[]): Promise<BatchRow> {
  const k = cx.keys.batch(batch);
  const [queuedAt, totals, stored] = await Promise.all([
    cx.redis.get(k.queued),
    cx.redis.hgetall(k.totals),
    cx.redis.hkeys(k.results),
  ]);
  const have = new Set(stored);
  const pending = onQueue.filter((j) => j.batch === batch && !have.has(j.sessionId));
  const runs = Number(totals.runs ?? 0);
  const failed = Number(totals.failed ?? 0) + pending.filter((j) => j.state === "failed").length;
  return {
    name: batch,
    ...(queuedAt &&
      Number.isFinite(Number(queuedAt)) && { queuedAt: new Date(Number(queuedAt)).toISOString() }),
    total: runs + pending.length,
    done: runs - Number(totals.failed ?? 0),
    failed,
    running: pending.filter((j) => j.state === "running").length,
    waiting: pending.filter((j) => j.state.startsWith("waiting")).length,
    costUsd: Number(totals.cost_usd ?? 0),
    tokens: Number(totals.input_tokens ?? 0) + Number(totals.output_tokens ?? 0),
  };
}

/** Where an item's transcript can be read: kept in Redis, or in this project's sessions folder. */
async function sessionOf(cx: Cx, sessionId: string): Promise<"queue" | "local" | undefined> {
  if ((await cx.redis.exists(cx.keys.transcript(sessionId))) === 1) return "queue";
  try {
    return existsSync(sessionFile(cx.sessionsDir, sessionId)) ? "local" : undefined;
  } catch {
    return undefined;
  }
}

async function eventsOf(cx: Cx, sessionId: string): Promise<RunEvent[]> {
  try {
    return (await cx.transcripts.read(sessionId)).events;
  } catch {
    return [];
  }
}

/** A batch's items: those on the queue (a running one's turns and cost read from its transcript), then the finished. */
async function itemRows(cx: Cx, batch: string, onQueue: readonly QueuedJob[]): Promise<ItemRow[]> {
  const results = await cx.redis.hgetall(cx.keys.batch(batch).results);
  const finished = new Map<string, BatchResult>();
  for (const [sessionId, v] of Object.entries(results)) {
    const r = parseResult(v);
    if (r) finished.set(sessionId, r);
  }
  const rows: ItemRow[] = [];
  for (const j of onQueue.filter((j) => j.batch === batch && !finished.has(j.sessionId))) {
    const paid = j.state === "running" ? paidBy(await eventsOf(cx, j.sessionId)) : undefined;
    rows.push({
      id: j.id,
      sessionId: j.sessionId,
      state: j.state,
      turns: paid?.turns ?? 0,
      costUsd: paid?.costUsd ?? 0,
      ...(j.message && { message: j.message }),
    });
  }
  for (const [sessionId, r] of finished)
    rows.push({
      id: r.id,
      sessionId,
      state: r.outcome,
      turns: r.turns,
      costUsd: r.costUsd,
      ...(r.worker && { worker: r.worker }),
      ...(r.message && { message: r.message }),
    });
  return rows.sort((a, b) => rank(a.state) - rank(b.state) || a.id.localeCompare(b.id));
}

/** Running first, then failed, waiting, and the finished (failures before successes). */
function rank(state: string): number {
  if (state === "running") return 0;
  if (state === "failed") return 1;
  if (state.startsWith("waiting")) return 2;
  return state === "done" ? 4 : 3;
}

function parseResult(v: string): BatchResult | undefined {
  try {
    return batchResultOf(JSON.parse(v));
  } catch {
    return undefined;
  }
}

async function scan(redis: Redis, match: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", match, "COUNT", 500);
    cursor = next;
    out.push(...keys);
  } while (cursor !== "0");
  return out;
}
