import type { Redis } from "ioredis";
import { type BatchResult, batchResultOf } from "./batch-result.js";
import type { BatchKeys } from "./queue-keys.js";

// The result and the batch's totals change together, and only the first time: a job run twice
// (its worker died after the result was written, before the queue heard of it) counts once.
const RECORD = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[2], 'runs', 1)
redis.call('HINCRBY', KEYS[2], 'failed', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'input_tokens', ARGV[4])
redis.call('HINCRBY', KEYS[2], 'output_tokens', ARGV[5])
redis.call('HINCRBY', KEYS[2], 'cache_read_input_tokens', ARGV[6])
redis.call('HINCRBY', KEYS[2], 'cache_creation_input_tokens', ARGV[7])
redis.call('HINCRBYFLOAT', KEYS[2], 'cost_usd', ARGV[8])
return 1`;

// A failed result queued again (`--retry-failed`) leaves, and takes its counts out of the totals:
// the retried run's result counts the whole session, its failed part too.
const DROP_FAILED = `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.outcome == 'done' then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local u = r.usage or {}
redis.call('HINCRBY', KEYS[2], 'runs', -1)
redis.call('HINCRBY', KEYS[2], 'failed', -1)
redis.call('HINCRBY', KEYS[2], 'input_tokens', 0 - (tonumber(u.input_tokens) or 0))
redis.call('HINCRBY', KEYS[2], 'output_tokens', 0 - (tonumber(u.output_tokens) or 0))
redis.call('HINCRBY', KEYS[2], 'cache_read_input_tokens', 0 - (tonumber(u.cache_read_input_tokens) or 0))
redis.call('HINCRBY', KEYS[2], 'cache_creation_input_tokens', 0 - (tonumber(u.cache_creation_input_tokens) or 0))
redis.call('HINCRBYFLOAT', KEYS[2], 'cost_usd', 0 - (tonumber(r.costUsd) or 0))
return 1`;

/**
 * Stores an item's result once, under its session id (what makes it the same work); resolves true
 * when this call stored it, false when it was there.
 */
export async function recordResult(redis: Redis, keys: BatchKeys, r: BatchResult): Promise<boolean> {
  const { skipped: _skipped, ...kept } = r;
  const u = r.usage;
  const stored = await redis.eval(
    RECORD,
    3,
    keys.results,
    keys.totals,
    keys.finished,
    r.sessionId,
    JSON.stringify(kept),
    r.outcome === "done" ? 0 : 1,
    u.input_tokens,
    u.output_tokens,
    u.cache_read_input_tokens,
    u.cache_creation_input_tokens,
    r.costUsd,
  );
  return stored === 1;
}

/** Takes a failed result out, to run its item again; resolves true when there was one. */
export async function dropFailedResult(redis: Redis, keys: BatchKeys, sessionId: string): Promise<boolean> {
  return (await redis.eval(DROP_FAILED, 2, keys.results, keys.totals, sessionId)) === 1;
}

/** The stored results of these sessions (those that have one), by session id. */
export async function readResults(
  redis: Redis,
  keys: BatchKeys,
  ids: readonly string[],
): Promise<Map<string, BatchResult>> {
  const out = new Map<string, BatchResult>();
  const CHUNK = 500;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const values = await redis.hmget(keys.results, ...chunk);
    values.forEach((v, j) => {
      const id = chunk[j];
      if (v === null || id === undefined) return;
      try {
        const r = batchResultOf(JSON.parse(v));
        if (r) out.set(id, r);
      } catch {
        // not a result of ours
      }
    });
  }
  return out;
}
