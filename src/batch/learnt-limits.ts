import type { Redis } from "ioredis";
import { QUOTAS, type Quota } from "./rate-headers.js";

/**
 * The limits the API's headers taught, where every process sharing the rate limit finds them
 * (`<prefix>:limits`, a hash quota → per minute; `none` when the answers carry no rate-limit
 * headers at all), and the probe: until a limit is known, one request goes at a time (`<prefix>:probe`),
 * so that a fleet of workers starting together does not send a burst the limit never allowed.
 */
export interface LearntLimits {
  read(): Promise<Learnt>;
  write(learnt: Learnt): Promise<void>;
  /** True when this process may send the one request that learns the limits. */
  probe(): Promise<boolean>;
  endProbe(): Promise<void>;
}

export interface Learnt {
  readonly limits: Partial<Record<Quota, number>>;
  /** The answers say nothing of limits: requests are not held back (only 429s hold them). */
  readonly none: boolean;
}

/**
 * How long a probe may stay unanswered (a slow answer, a worker that died with it) before another
 * request may go as one: the others never wait long for it.
 */
const PROBE_MS = 2000;

export function redisLearntLimits(redis: Redis, prefix: string): LearntLimits {
  const key = `${prefix}:limits`;
  const probeKey = `${prefix}:probe`;
  return {
    read: async () => {
      const h = await redis.hgetall(key).catch(() => ({}) as Record<string, string>);
      return learntOf(h);
    },
    write: async (l) => {
      const fields = Object.entries(l.limits).map(([q, n]) => [q, String(n)]);
      if (l.none) fields.push(["none", "1"]);
      if (fields.length > 0) await redis.hset(key, Object.fromEntries(fields)).catch(() => {});
    },
    probe: async () => (await redis.set(probeKey, "1", "PX", PROBE_MS, "NX").catch(() => "OK")) === "OK",
    endProbe: async () => {
      await redis.del(probeKey).catch(() => {});
    },
  };
}

export function memoryLearntLimits(): LearntLimits {
  let learnt: Learnt = { limits: {}, none: false };
  let probingUntil = 0;
  return {
    read: async () => learnt,
    write: async (l) => {
      learnt = { limits: { ...learnt.limits, ...l.limits }, none: learnt.none || l.none };
    },
    probe: async () => {
      if (Date.now() < probingUntil) return false;
      probingUntil = Date.now() + PROBE_MS;
      return true;
    },
    endProbe: async () => {
      probingUntil = 0;
    },
  };
}

function learntOf(h: Record<string, string>): Learnt {
  const limits: Partial<Record<Quota, number>> = {};
  for (const q of QUOTAS) {
    const n = Number(h[q]);
    if (Number.isInteger(n) && n > 0) limits[q] = n;
  }
  return { limits, none: h.none === "1" };
}
