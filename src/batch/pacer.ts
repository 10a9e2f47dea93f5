import type { Redis } from "ioredis";

/**
 * Even spacing of requests under a limit per minute: the generic cell rate algorithm (GCRA, a
 * leaky bucket kept as one number, the theoretical arrival time of the next request). Each request
 * reserves the next place, one emission interval (60 s / limit) after the one before, so no
 * interval holds more than its share of the minute: at 1200 a minute, one every 50 ms, never more
 * than 20 in any second, wherever the second starts (fixed windows let two windows' requests meet
 * at their edge). `burst` places may go at once when the bucket has been idle (default none).
 *
 * In Redis the reservation is one Lua script, atomic for every process sharing the key (a queue's
 * workers); in memory it is the same arithmetic for a local batch.
 */
export interface Pacer {
  readonly perMinute: number;
  /** Reserves the next place at or after `now` (ms since the epoch): when the request may start. */
  reserve(now: number): Promise<number>;
  /** No place before `at` (the API said none is left until then, or every request is held). */
  delayTo(at: number): Promise<void>;
  /** How many requests could start at `now` without waiting. */
  left(now: number): Promise<number>;
}

export interface PacerOptions {
  readonly perMinute: number;
  readonly burst?: number;
  /**
   * The share of the limit kept unused (0 to 0.5): a request sent a little late (a timer, the
   * network) lands nearer the next one, and the API counts it in the next second.
   */
  readonly headroom?: number;
  /** Shared through this client under `key`; else in this process's memory. */
  readonly redis?: { readonly client: Redis; readonly key: string };
}

// The times are whole microseconds (exact in a double up to 2^53, so no drift however many places
// are added up); a limit's interval is rounded up to one, losing under a microsecond a request.
// KEYS[1]: the next place. ARGV: now, interval, tolerance. Returns the reserved start (as text, all
// its digits: Redis would cut a Lua number to 32 bits).
const RESERVE = `
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local start = math.max(now, tat - tolerance)
local nextTat = math.max(tat, start) + interval
redis.call('SET', KEYS[1], string.format('%.17g', nextTat), 'PX', math.ceil((nextTat - now) / 1000) + 60000)
return string.format('%.17g', start)
`;

// KEYS[1]: the next place. ARGV: at, now. Moves it to at when sooner.
const DELAY = `
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = tonumber(ARGV[1])
if at > tat then redis.call('SET', KEYS[1], ARGV[1], 'PX', math.ceil((at - tonumber(ARGV[2])) / 1000) + 60000) end
return 0
`;

const us = (ms: number) => Math.round(ms * 1000);

export function createPacer(o: PacerOptions): Pacer {
  const headroom = Math.min(0.5, Math.max(0, o.headroom ?? 0));
  const interval = Math.ceil(60_000_000 / (Math.max(1, o.perMinute) * (1 - headroom)));
  const tolerance = Math.max(0, Math.floor(o.burst ?? 0)) * interval;
  const leftAt = (tat: number, now: number) =>
    Math.min(1 + tolerance / interval, Math.max(0, Math.floor((us(now) + tolerance - tat) / interval) + 1));
  if (o.redis) {
    const { client, key } = o.redis;
    return {
      perMinute: o.perMinute,
      reserve: async (now) => Number(await client.eval(RESERVE, 1, key, us(now), interval, tolerance)) / 1000,
      delayTo: async (at) => {
        await client.eval(DELAY, 1, key, Math.ceil(at * 1000), us(Date.now()));
      },
      left: async (now) => leftAt(Number((await client.get(key)) ?? 0), now),
    };
  }
  let tat = 0;
  return {
    perMinute: o.perMinute,
    reserve: async (now) => {
      const start = Math.max(us(now), tat - tolerance);
      tat = Math.max(tat, start) + interval;
      return start / 1000;
    },
    delayTo: async (at) => {
      tat = Math.max(tat, Math.ceil(at * 1000));
    },
    left: async (now) => leftAt(tat, now),
  };
}
