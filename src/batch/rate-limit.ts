import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { type Learnt, memoryLearntLimits, redisLearntLimits } from "./learnt-limits.js";
import { createPacer, type Pacer } from "./pacer.js";
import { QUOTAS, type Quota, type RateReport } from "./rate-headers.js";

/** Limits per minute, by quota. */
export type PerMinute = Partial<Record<Quota, number>>;

/** What one request takes, in tokens as the API counts them (input: uncached and cache writes). */
export interface Draw {
  readonly input: number;
  readonly output: number;
}

export interface RateLimitOptions {
  /**
   * Where the counts are kept: a queue's Redis, under `prefix` (every worker of the queue shares
   * them: one limit for all), or, without, this process's memory (a local batch).
   */
  readonly redis?: { readonly client: Redis; readonly prefix: string };
  /** Limits given (`--rpm`, `--tpm`): kept whatever the headers say. The others are learnt. */
  readonly given?: PerMinute;
  /** The shortest window a token limit is cut in (default 1 s; tests lengthen it to count in one). */
  readonly shortestWindowSeconds?: number;
  /** Told when every request is held (a 429's retry-after), with until when. */
  readonly onHold?: (until: number) => void;
}

/** A request's place in the limit: corrected once its answer says what it used. */
export interface Ticket {
  /** What the request really used; undefined when the API did not count it (refused, failed). */
  settle(used: Draw | undefined): Promise<void>;
}

export interface RateLimit {
  /** Waits until the request may go (every quota has room, no hold), then takes its share. */
  take(draw: Draw, signal?: AbortSignal): Promise<Ticket>;
  /**
   * An answer: its rate-limit headers teach the limits (those not given) and correct what is left;
   * a 429 (or a 529 that says when) holds every request, of every process sharing the limit, for
   * `retryAfterMs` (else until the exhausted quota's reset, else one second).
   */
  observe(status: number, report: RateReport, retryAfterMs: number, ticket?: Ticket): Promise<void>;
  /** The limits in effect, per minute (given, or learnt from the headers). */
  readonly limits: PerMinute;
  /** What the quota's current window has left (undefined: no limit known for it). */
  left(quota: Quota): Promise<number | undefined>;
  /** Until when requests are held, as this process last saw (ms since the epoch). */
  readonly pausedUntil: number;
  /** Rate-limit answers seen by this process. */
  readonly limited: number;
}

/**
 * One token quota's window: `points` per `seconds`, a minute's limit cut in the shortest windows that
 * hold a whole share of it (the API enforces a limit per minute over shorter intervals too: 60 a
 * minute may be one a second), losing at most 5% of it to rounding: 1200 a minute is 20 a second,
 * 50 a minute 5 in 6 s.
 */
interface Window {
  readonly quota: Quota;
  readonly limit: number;
  readonly seconds: number;
  readonly points: number;
  readonly key: string;
  readonly rl: RateLimiterAbstract;
}

interface Taken {
  readonly w: Window;
  readonly amount: number;
  /** What the window had left after this request: compared with what the API says it has. */
  readonly left: number;
  /** When the window it was taken from ends (a refund after that would be a gift to the next). */
  readonly until: number;
}

const HOLD = "hold";
/** How often a process waiting for the probe's answer looks whether the limits are known. */
const PROBE_POLL_MS = 50;
const LIMITED = new Set([429, 529]);
/** The share of the request limit the spacing leaves for a request sent late (bench/rate-limit.js). */
const PACE_HEADROOM = 0.03;

/**
 * The rate limit of every model request of a queue's workers (or of a local batch): requests per
 * minute evenly spaced (`pacer.ts`, GCRA: one place every 60 s / limit, so no second holds more
 * than its share), tokens per minute as fixed windows counted by `rate-limiter-flexible` (a
 * request's tokens are only known once answered, and the windows take the correction), both atomic
 * in Redis, shared by every process, or in memory; plus a hold every process sees after a 429.
 */
export function createRateLimit(o: RateLimitOptions = {}): RateLimit {
  const prefix = o.redis ? o.redis.prefix : "agentmd:rate";
  const make = (points: number, seconds: number) =>
    o.redis
      ? new RateLimiterRedis({ storeClient: o.redis.client, keyPrefix: prefix, points, duration: seconds })
      : new RateLimiterMemory({ keyPrefix: prefix, points, duration: seconds });
  const windows = new Map<Quota, Window>();
  let pace: Pacer | undefined;
  const setLimit = (quota: Quota, limit: number) => {
    if (quota !== "requests") {
      if (windows.get(quota)?.limit !== limit) windows.set(quota, windowFor(quota, limit));
    } else if (pace?.perMinute !== limit) {
      const redis = o.redis && { client: o.redis.client, key: `${prefix}:pace:${limit}` };
      pace = createPacer({ perMinute: limit, headroom: PACE_HEADROOM, ...(redis && { redis }) });
    }
  };
  const limitOf = (quota: Quota) => (quota === "requests" ? pace?.perMinute : windows.get(quota)?.limit);
  const known = () => windows.size > 0 || pace !== undefined;
  const windowFor = (quota: Quota, limit: number): Window => {
    const { seconds, points } = windowOf(limit, o.shortestWindowSeconds);
    return { quota, limit, seconds, points, key: `${quota}:${seconds}s`, rl: make(points, seconds) };
  };
  for (const q of QUOTAS) {
    const given = o.given?.[q];
    if (given !== undefined) setLimit(q, given);
  }
  const hold = make(0, 1);
  const learnt = o.redis ? redisLearntLimits(o.redis.client, prefix) : memoryLearntLimits();
  // The answers carry no rate-limit headers: nothing to learn, requests go (429s still hold them).
  let unlimited = false;
  /** The probes (the requests that learn the limits), and when each went. */
  const probes = new WeakMap<Ticket, number>();
  let pausedUntil = 0;
  // A 429 this process saw holds its own requests at once, before the hold is written in Redis.
  let heldHere = 0;
  let limited = 0;
  const tickets = new WeakMap<Ticket, readonly Taken[]>();

  const heldFor = async () => {
    const here = heldHere - Date.now();
    if (here > 0) return here;
    const held = await hold.get(HOLD);
    return held && held.consumedPoints > 0 && held.msBeforeNext > 0 ? held.msBeforeNext : 0;
  };

  // The request's place in the spacing; a hold begun while it waited for it sends it back.
  const paced = async (signal?: AbortSignal): Promise<number> => {
    if (!pace) return 0;
    const asked = Date.now();
    const start = await pace.reserve(asked).catch(() => asked); // the store failed: the API still enforces
    // Until the place from when the answer came, not from when it was asked: a sleep measured from
    // before the round trip would send every request that round trip late, and late requests
    // bunch up in the API's seconds.
    const now = Date.now();
    if (start <= now) return 0;
    pausedUntil = Math.max(pausedUntil, start);
    await sleepFor(start - now, signal);
    return signal?.aborted ? 0 : heldFor();
  };

  const tryTake = async (draw: Draw, signal?: AbortSignal): Promise<Ticket | number> => {
    const wasKnown = known() || unlimited;
    const held = await heldFor();
    if (held > 0) return held;
    let probe = false;
    if (!known() && !unlimited) {
      apply(await learnt.read());
      if (!known() && !unlimited) {
        if (!(await learnt.probe())) return PROBE_POLL_MS;
        probe = true;
      }
    }
    // The answer that taught the limits (or ended the probe) may have been a 429: its hold is
    // written before them, so once they are seen the hold is looked for again.
    if (!wasKnown) {
      const heldNow = await heldFor();
      if (heldNow > 0) {
        if (probe) await learnt.endProbe();
        return heldNow;
      }
    }
    const heldAfter = await paced(signal);
    if (heldAfter > 0) return heldAfter;
    // The last look before it goes, alongside its tokens (no round trip more): a hold written
    // while it took its place (another process's 429, this one's) sends it back, tokens given back.
    const lastLook = heldFor().catch(() => 0);
    const taken: Taken[] = [];
    for (const w of windows.values()) {
      // A request larger than a window takes a whole one; its settling charges the rest.
      const amount = Math.min(w.points, amountOf(w.quota, draw));
      try {
        const res = await w.rl.consume(w.key, amount);
        taken.push({ w, amount, left: res.remainingPoints, until: Date.now() + res.msBeforeNext });
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) break; // the store failed: the API still enforces its limit
        await Promise.all([...taken, { w, amount }].map((t) => t.w.rl.reward(t.w.key, t.amount)));
        return Math.max(1, e.msBeforeNext);
      }
    }
    // This process's own 429 is known at once, however late it came.
    const late = Math.max(await lastLook, heldHere - Date.now());
    if (late > 0) {
      await Promise.all(taken.map((t) => t.w.rl.reward(t.w.key, t.amount).catch(() => {})));
      if (probe) await learnt.endProbe();
      return late;
    }
    const ticket: Ticket = {
      settle: async (used) => {
        if (probe && used === undefined) await learnt.endProbe();
        await settle(taken, used);
      },
    };
    tickets.set(ticket, taken);
    if (probe) probes.set(ticket, Date.now());
    return ticket;
  };

  const settle = async (taken: readonly Taken[], used: Draw | undefined) => {
    for (const t of taken) {
      const diff = (used ? amountOf(t.w.quota, used) : 0) - t.amount;
      if (diff > 0) await charge(t.w, diff);
      else if (diff < 0 && Date.now() < t.until) await t.w.rl.reward(t.w.key, -diff).catch(() => {});
    }
  };

  // Tokens used beyond the window's points are owed to the windows after it: it is blocked for as
  // many more windows as the excess fills.
  const charge = async (w: Window, points: number) => {
    try {
      const res = await w.rl.penalty(w.key, points);
      const over = res.consumedPoints - w.points;
      if (over > 0)
        await w.rl.block(
          w.key,
          Math.ceil(res.msBeforeNext / 1000) + Math.ceil((over / w.points) * w.seconds),
        );
    } catch {
      // the store failed: the API still enforces its limit
    }
  };

  const holdFor = async (ms: number) => {
    const until = Date.now() + ms;
    pausedUntil = Math.max(pausedUntil, until);
    o.onHold?.(pausedUntil);
    const held = await hold.get(HOLD).catch(() => null);
    if (held && held.consumedPoints > 0 && held.msBeforeNext >= ms) return;
    await hold.block(HOLD, Math.max(1, Math.ceil(ms / 1000))).catch(() => {});
    // After the hold the requests are spaced from its end, not let go together.
    await pace?.delayTo(until).catch(() => {});
  };

  const apply = (l: Learnt) => {
    for (const q of QUOTAS) {
      const limit = l.limits[q];
      if (limit !== undefined && o.given?.[q] === undefined) setLimit(q, limit);
    }
    if (l.none) unlimited = true;
  };

  // What an answer teaches is written where the other processes find it, when it is news.
  // The probe went before the spacing knew the limit: the first place is one interval after it
  // (else the probe and a second's share of places land in one second of the API's). Moved before
  // the limits are written, so that no process finds them without it.
  const learn = async (report: RateReport, probeAt: number | undefined) => {
    const probe = probeAt !== undefined;
    const limits: Partial<Record<Quota, number>> = {};
    for (const q of QUOTAS) {
      const limit = report[q]?.limit;
      if (limit !== undefined && limitOf(q) !== limit) limits[q] = limit;
    }
    const none = probe && QUOTAS.every((q) => report[q]?.limit === undefined);
    apply({ limits, none });
    if (probe && pace)
      await pace.delayTo(probeAt + 60_000 / (pace.perMinute * (1 - PACE_HEADROOM))).catch(() => {});
    if (none || Object.keys(limits).length > 0) await learnt.write({ limits, none });
    if (probe) await learnt.endProbe();
  };

  // The API had less left than the window lets go (another client spends on the key, or the
  // windows run ahead of its bucket): the window keeps to what the API has.
  const align = async (report: RateReport, taken: readonly Taken[]) => {
    const requests = report.requests;
    if (pace && requests?.remaining === 0)
      await pace.delayTo(requests.resetAt ?? Date.now() + 60_000 / pace.perMinute).catch(() => {});
    for (const t of taken) {
      const remaining = report[t.w.quota]?.remaining;
      if (remaining === undefined || windows.get(t.w.quota) !== t.w || Date.now() >= t.until) continue;
      if (t.left > remaining) await charge(t.w, t.left - remaining);
    }
  };

  return {
    take: async (draw, signal) => {
      for (;;) {
        const r = await tryTake(draw, signal);
        if (typeof r !== "number") return r;
        pausedUntil = Math.max(pausedUntil, Date.now() + r);
        if (signal?.aborted) return { settle: async () => {} };
        await sleepFor(r, signal);
      }
    },
    observe: async (status, report, retryAfterMs, ticket) => {
      // The hold first: a probe's end lets the other processes go, and they must find it there.
      if (LIMITED.has(status)) {
        limited++;
        const wait = retryAfterMs || (status === 429 ? untilReset(report) : 0);
        if (wait > 0) heldHere = Math.max(heldHere, Date.now() + wait);
        if (wait > 0) await holdFor(wait);
      }
      await learn(report, ticket === undefined ? undefined : probes.get(ticket));
      if (ticket) await align(report, tickets.get(ticket) ?? []);
    },
    left: async (quota) => {
      if (quota === "requests") return pace?.left(Date.now());
      const w = windows.get(quota);
      if (!w) return undefined;
      const res = await w.rl.get(w.key);
      return Math.max(0, w.points - (res?.consumedPoints ?? 0));
    },
    get limits() {
      const tokens = Object.fromEntries([...windows].map(([q, w]) => [q, w.limit]));
      return pace ? { requests: pace.perMinute, ...tokens } : tokens;
    },
    get pausedUntil() {
      return pausedUntil;
    },
    get limited() {
      return limited;
    },
  };
}

export function windowOf(limit: number, shortest = 1): { seconds: number; points: number } {
  for (let seconds = Math.max(1, Math.floor(shortest)); seconds < 60; seconds++) {
    const share = (limit * seconds) / 60;
    if (share >= 1 && Math.floor(share) >= 0.95 * share) return { seconds, points: Math.floor(share) };
  }
  return { seconds: 60, points: Math.max(1, Math.floor(limit)) };
}

function amountOf(quota: Quota, d: Draw): number {
  if (quota === "requests") return 1;
  if (quota === "input_tokens") return Math.max(0, Math.round(d.input));
  if (quota === "output_tokens") return Math.max(0, Math.round(d.output));
  return Math.max(0, Math.round(d.input + d.output));
}

/** A 429 without retry-after: until the soonest reset of a quota it says is spent, else 1 s. */
function untilReset(report: RateReport): number {
  const resets = QUOTAS.map((q) => report[q])
    .filter((r) => r?.remaining === 0 && r.resetAt !== undefined)
    .map((r) => (r?.resetAt ?? 0) - Date.now());
  const soonest = Math.min(...resets.filter((ms) => ms > 0));
  return Number.isFinite(soonest) ? soonest : 1000;
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
