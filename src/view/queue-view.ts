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
  const transcripts = redisTranscripts(redis, keys.transcript);
  const prefix = `agentmd:${name}:`;

  const batchNames = async (): Promise<string[]> => {
    const names = new Set<string>();
    for (const kind of ["queued", "totals", "results"]) {
      const found = await scan(redis, `${prefix}${kind}:*`);
      for (const key of found) names.add(key.slice(`${prefix}${kind}:`.length));
    }
    return [...names].sort();
  };

  const jobs = async (): Promise<QueuedJob[]> => {
    const out: QueuedJob[] = [];
    for (const state of STATES) {
      for (const job of await queue.getJobs([state], 0, MAX_JOBS - 1)) {
        const data = jobDataOf(job?.data);
        if (!job?.id || typeof data === "string") continue;
        const refused = state === "delayed" && refusalOf(job.progress);
        out.push({
          sessionId: job.id,
          id: data.item.id,
          batch: data.batch,
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
  };

  const row = async (batch: string, onQueue: readonly QueuedJob[]): Promise<BatchRow> => {
    const k = keys.batch(batch);
    const [queuedAt, totals, stored] = await Promise.all([
      redis.get(k.queued),
      redis.hgetall(k.totals),
      redis.hkeys(k.results),
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
  };

  const sessionOf = async (sessionId: string): Promise<"queue" | "local" | undefined> => {
    if ((await redis.exists(keys.transcript(sessionId))) === 1) return "queue";
    try {
      return existsSync(sessionFile(sessionsDir, sessionId)) ? "local" : undefined;
    } catch {
      return undefined;
    }
  };

  const eventsOf = async (sessionId: string) => {
    try {
      return (await transcripts.read(sessionId)).events;
    } catch {
      return [];
    }
  };

  const itemRows = async (batch: string, onQueue: readonly QueuedJob[]): Promise<ItemRow[]> => {
    const results = await redis.hgetall(keys.batch(batch).results);
    const finished = new Map<string, BatchResult>();
    for (const [sessionId, v] of Object.entries(results)) {
      const r = parseResult(v);
      if (r) finished.set(sessionId, r);
    }
    const pending = onQueue.filter((j) => j.batch === batch && !finished.has(j.sessionId));
    const rows: ItemRow[] = [];
    for (const j of pending) {
      const paid = j.state === "running" ? paidBy(await eventsOf(j.sessionId)) : undefined;
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
  };

  return {
    name,
    async batches() {
      const [names, onQueue] = await Promise.all([batchNames(), jobs()]);
      for (const j of onQueue) if (!names.includes(j.batch)) names.push(j.batch);
      return Promise.all(names.map((n) => row(n, onQueue)));
    },
    async batch(batch) {
      const onQueue = await jobs();
      const known = (await batchNames()).includes(batch) || onQueue.some((j) => j.batch === batch);
      if (!known) return undefined;
      const items = await itemRows(batch, onQueue);
      const shown = items.slice(0, MAX_ITEMS);
      const withSessions = await Promise.all(
        shown.map(async (i) => {
          const session = await sessionOf(i.sessionId);
          return session ? { ...i, session } : i;
        }),
      );
      return { batch: await row(batch, onQueue), items: withSessions, more: items.length - shown.length };
    },
    async session(id) {
      const read = await transcripts.read(id);
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
