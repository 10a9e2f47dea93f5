import type { Redis } from "ioredis";
import { type BatchResult, batchResultOf } from "./batch-result.js";
import type { WaitKeys } from "./queue-keys.js";

/**
 * What one `batch --wait` waits for, kept in Redis rather than in the waiting process: a hash of
 * session id → the item's place in the file, its id, and whether its result was there before the
 * enqueue. An entry leaves the hash when its result is handed over, by one atomic take: a result
 * met twice (in the finished list and in a sweep) is handed over once. The process keeps counts.
 */
export interface WaitEntry {
  /** The item's place among the file's items (0-based). */
  readonly ordinal: number;
  readonly id: string;
  /** Its result was stored before this enqueue (it is handed over marked `skipped`). */
  readonly before: boolean;
}

/** A day and more: a wait given up without its clean-up leaves nothing for good. */
const WAIT_TTL_S = 7 * 24 * 3600;

export const encodeEntry = (e: WaitEntry): string => `${e.ordinal}\t${e.before ? 1 : 0}\t${e.id}`;

export function decodeEntry(value: string): WaitEntry {
  const a = value.indexOf("\t");
  const b = value.indexOf("\t", a + 1);
  return {
    ordinal: Number(value.slice(0, a)),
    before: value.slice(a + 1, b) === "1",
    id: value.slice(b + 1),
  };
}

export async function addPending(
  redis: Redis,
  keys: WaitKeys,
  entries: readonly (readonly [string, WaitEntry])[],
): Promise<void> {
  if (entries.length === 0) return;
  await redis.hset(keys.pending, ...entries.flatMap(([sid, e]) => [sid, encodeEntry(e)]));
  await redis.expire(keys.pending, WAIT_TTL_S);
}

// Takes the entries of these sessions that have a result, with the result: one hand-over each.
const TAKE_RESULTS = `
local out = {}
for _, id in ipairs(ARGV) do
  local e = redis.call('HGET', KEYS[1], id)
  if e then
    local r = redis.call('HGET', KEYS[2], id)
    if r then
      redis.call('HDEL', KEYS[1], id)
      redis.call('SREM', KEYS[3], id)
      out[#out + 1] = id
      out[#out + 1] = e
      out[#out + 1] = r
    end
  end
end
return out`;

// Takes the entries of these sessions whatever their result (jobs that failed without one).
const TAKE_ENTRIES = `
local out = {}
for _, id in ipairs(ARGV) do
  local e = redis.call('HGET', KEYS[1], id)
  if e then
    redis.call('HDEL', KEYS[1], id)
    redis.call('SREM', KEYS[2], id)
    out[#out + 1] = id
    out[#out + 1] = e
  end
end
return out`;

export interface Taken {
  readonly sessionId: string;
  readonly entry: WaitEntry;
  /** Undefined for a stored value that is not a result of ours (handed over as a failure). */
  readonly result: BatchResult | undefined;
}

/** Hands over, once, the results these sessions have, taking them out of the wait. */
export async function takeResults(
  redis: Redis,
  keys: WaitKeys,
  resultsKey: string,
  ids: readonly string[],
): Promise<Taken[]> {
  if (ids.length === 0) return [];
  const flat = (await redis.eval(
    TAKE_RESULTS,
    3,
    keys.pending,
    resultsKey,
    keys.refused,
    ...ids,
  )) as string[];
  const out: Taken[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3)
    out.push({
      sessionId: flat[i] ?? "",
      entry: decodeEntry(flat[i + 1] ?? ""),
      result: parsed(flat[i + 2]),
    });
  return out;
}

/** Takes these sessions out of the wait whatever their result; gives the entries that were there. */
export async function takeEntries(
  redis: Redis,
  keys: WaitKeys,
  ids: readonly string[],
): Promise<(readonly [string, WaitEntry])[]> {
  if (ids.length === 0) return [];
  const flat = (await redis.eval(TAKE_ENTRIES, 2, keys.pending, keys.refused, ...ids)) as string[];
  const out: (readonly [string, WaitEntry])[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] ?? "", decodeEntry(flat[i + 1] ?? "")]);
  return out;
}

/** The entries still waited for, a chunk at a time (a chunk may come twice: takes guard that). */
export async function* pendingChunks(
  redis: Redis,
  keys: WaitKeys,
): AsyncGenerator<(readonly [string, WaitEntry])[]> {
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(keys.pending, cursor, "COUNT", 500);
    cursor = next;
    const chunk: (readonly [string, WaitEntry])[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) chunk.push([flat[i] ?? "", decodeEntry(flat[i + 1] ?? "")]);
    if (chunk.length > 0) yield chunk;
  } while (cursor !== "0");
}

/**
 * Marks these sessions as put back for a worker of their version (or no longer: `false`); gives
 * those marked: only sessions still waited for (one handed over meanwhile stays out).
 */
export async function markRefused(
  redis: Redis,
  keys: WaitKeys,
  ids: readonly string[],
  on: boolean,
): Promise<string[]> {
  if (ids.length === 0) return [];
  if (!on) {
    await redis.srem(keys.refused, ...ids);
    return [];
  }
  const there = await redis.hmget(keys.pending, ...ids);
  const still = ids.filter((_, i) => there[i] !== null);
  if (still.length === 0) return [];
  await redis.sadd(keys.refused, ...still);
  await redis.expire(keys.refused, WAIT_TTL_S);
  return still;
}

export async function dropWait(redis: Redis, keys: WaitKeys): Promise<void> {
  await redis.del(keys.pending, keys.refused);
}

function parsed(value: string | undefined): BatchResult | undefined {
  try {
    return value === undefined ? undefined : batchResultOf(JSON.parse(value));
  } catch {
    return undefined;
  }
}
