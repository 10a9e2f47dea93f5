import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPacer, type Pacer } from "../../src/batch/pacer.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";

/**
 * The schedule the pacing grants, read from the start times it reserves against a clock the test
 * gives (no waiting): spaced one emission interval apart, never more than a second's share of the
 * minute in any second, wherever the second starts.
 */
const T0 = 1_800_000_000_000;

/** The most starts in any interval [s, s + ms) beginning at a start. */
function mostIn(starts: readonly number[], ms: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] ?? 0) < (sorted[i] ?? 0) + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

function gaps(starts: readonly number[]): number[] {
  const sorted = [...starts].sort((a, b) => a - b);
  return sorted.slice(1).map((s, i) => s - (sorted[i] ?? 0));
}

async function reserveAll(pacer: Pacer, n: number, now = T0): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < n; i++) starts.push(await pacer.reserve(now));
  return starts;
}

/** A microsecond: the times are floating-point milliseconds since the epoch (rounding below it). */
const US = 1e-3;

/** Asserts the schedule of `starts` keeps to `perMinute` with `burst` extra places. */
function expectPaced(starts: readonly number[], perMinute: number, burst = 0) {
  const interval = 60_000 / perMinute;
  for (const g of gaps(starts).slice(burst)) expect(g).toBeGreaterThanOrEqual(interval - US);
  expect(mostIn(starts, 1000 - US)).toBeLessThanOrEqual(Math.ceil(perMinute / 60) + burst);
  expect(mostIn(starts, 60_000 - US)).toBeLessThanOrEqual(perMinute + burst);
}

/** The same schedule, to the microsecond. */
function expectSame(starts: readonly number[], expected: readonly number[]) {
  expect(starts).toHaveLength(expected.length);
  for (const [i, s] of starts.entries()) expect(Math.abs(s - (expected[i] ?? 0))).toBeLessThan(US);
}

const LIMITS = [7, 50, 60, 61, 1200, 4000];

describe("request pacing in memory (a local batch)", () => {
  it.each(LIMITS)(
    "%i a minute, asked all at once: the first now, the others one interval apart",
    async (limit) => {
      const n = Math.min(300, limit + 5);
      const starts = await reserveAll(createPacer({ perMinute: limit }), n);
      expect(starts[0]).toBe(T0);
      expectPaced(starts, limit);
      // Over a minute and a half of places: the minute after the first holds the limit, no more.
      expect(mostIn(starts, 60_000 - US)).toBe(Math.min(n, limit));
    },
  );

  it("keeps the spacing for any arrivals (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 120 }),
        async (limit, steps) => {
          const pacer = createPacer({ perMinute: limit });
          let now = T0;
          const starts: number[] = [];
          for (const step of steps) {
            now += step;
            const start = await pacer.reserve(now);
            expect(start).toBeGreaterThanOrEqual(now);
            starts.push(start);
          }
          expectPaced(starts, limit);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("lets `burst` places go at once after idling, then spaces the rest", async () => {
    const starts = await reserveAll(createPacer({ perMinute: 600, burst: 3 }), 20);
    expect(starts.slice(0, 4)).toEqual([T0, T0, T0, T0]);
    expectPaced(starts, 600, 3);
  });

  it("leaves the headroom it is given unused: 3% of 60 a minute, one every 1031 ms", async () => {
    const starts = await reserveAll(createPacer({ perMinute: 60, headroom: 0.03 }), 10);
    for (const g of gaps(starts)) expect(g).toBeCloseTo(1000 / 0.97, 2);
  });

  it("gives no place before the time it is told (a hold, or the API saying none is left)", async () => {
    const pacer = createPacer({ perMinute: 60 });
    await pacer.delayTo(T0 + 5000);
    expect(await pacer.left(T0)).toBe(0);
    expect(await reserveAll(pacer, 3)).toEqual([T0 + 5000, T0 + 6000, T0 + 7000]);
    expect(await pacer.left(T0 + 8000)).toBe(1);
  });
});

describe.runIf(hasRedis)("request pacing shared through Redis (a queue's workers)", () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushall();
  });
  const worker = (perMinute: number, burst = 0) => {
    const client = new Redis(redis.url);
    clients.push(client);
    return createPacer({ perMinute, burst, redis: { client, key: "agentmd:q:rate:pace" } });
  };

  it.each([7, 60, 1200])("%i a minute: one worker's schedule is the memory one's", async (limit) => {
    const n = Math.min(100, limit + 5);
    const shared = await reserveAll(worker(limit), n);
    const memory = await reserveAll(createPacer({ perMinute: limit }), n);
    expectSame(shared, memory);
    expectPaced(shared, limit);
  });

  it("two workers asking at once interleave without exceeding the limit together", async () => {
    const a = worker(1200);
    const b = worker(1200);
    const ask = (p: Pacer) => Promise.all(Array.from({ length: 60 }, () => p.reserve(T0)));
    const [fromA, fromB] = await Promise.all([ask(a), ask(b)]);
    const all = [...fromA, ...fromB];
    expectPaced(all, 1200);
    // One place each, no gap: the places a single process would have had, shared out.
    const one = await reserveAll(createPacer({ perMinute: 1200 }), 120);
    expectSame(
      [...all].sort((x, y) => x - y),
      one,
    );
  });

  it("a hold one worker sets moves the other's next place", async () => {
    const a = worker(60);
    const b = worker(60);
    await a.reserve(T0);
    await a.delayTo(T0 + 10_000);
    expect(await b.reserve(T0 + 1)).toBe(T0 + 10_000);
    expect(await b.left(T0 + 10_000)).toBe(0);
  });
});
