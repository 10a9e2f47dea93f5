import { describe, expect, it } from "vitest";
import { createRateGate, retryAfterMs } from "../../src/batch/rate-gate.js";

/** A clock that moves only when told: every sleep resolves once the clock reaches its end. */
function manualClock() {
  let t = 1_000_000;
  const sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => t,
    sleep: (ms: number) =>
      new Promise<void>((wake) => {
        sleepers.push({ until: t + ms, wake });
      }),
    advance(ms: number) {
      t += ms;
      for (const s of sleepers.splice(0)) {
        if (s.until <= t) s.wake();
        else sleepers.push(s);
      }
    },
    get sleeping() {
      return sleepers.length;
    },
  };
}

const answer =
  (status: number, headers: Record<string, string> = {}) =>
  async () =>
    new Response("{}", { status, headers });
const flush = () => new Promise((r) => setImmediate(r));

describe("the rate gate", () => {
  it("holds every new request after a 429 with retry-after, until then", async () => {
    const clock = manualClock();
    const gate = createRateGate({ max: 8, now: clock.now, sleep: clock.sleep });
    expect((await gate.wrap(answer(429, { "retry-after": "2" }))("http://x")).status).toBe(429);
    expect(gate.pausedUntil).toBe(clock.now() + 2000);
    let sent = 0;
    const next = gate.wrap(async () => {
      sent++;
      return new Response("{}");
    });
    const a = next("http://x");
    const b = next("http://x");
    await flush();
    expect(sent).toBe(0);
    expect(clock.sleeping).toBe(2);
    clock.advance(1999);
    await flush();
    expect(sent).toBe(0);
    clock.advance(1);
    await Promise.all([a, b]);
    expect(sent).toBe(2);
  });

  it("halves the limit once per burst of 429s, and adds one back per streak as long as the limit", async () => {
    const clock = manualClock();
    const limits: number[] = [];
    const gate = createRateGate({
      max: 8,
      now: clock.now,
      sleep: clock.sleep,
      onChange: (g) => limits.push(g.limit),
    });
    // Three requests in flight together, all answered 429: one decrease.
    let answerWith = 429;
    const inFlight = gate.wrap(async () => {
      await flush();
      return new Response("{}", { status: answerWith });
    });
    await Promise.all([inFlight("u"), inFlight("u"), inFlight("u")]);
    expect(gate.limit).toBe(4);
    expect(gate.limited).toBe(3);
    // A 429 to a request sent after the decrease decreases again.
    await inFlight("u");
    expect(gate.limit).toBe(2);
    answerWith = 200;
    for (let i = 0; i < 2; i++) await inFlight("u");
    expect(gate.limit).toBe(3);
    for (let i = 0; i < 3 + 4 + 5 + 6; i++) await inFlight("u");
    expect(gate.limit).toBe(7);
    for (let i = 0; i < 100; i++) await inFlight("u");
    expect(gate.limit).toBe(8);
    expect(limits.slice(0, 4)).toEqual([4, 4, 4, 2]);
    expect(Math.min(...limits)).toBe(2);
  });

  it("counts toward a raise only the answers to requests sent after the last decrease", async () => {
    const gate = createRateGate({ max: 2 });
    const statuses = [429, 200];
    const releases: (() => void)[] = [];
    const fetch = gate.wrap(async () => {
      const status = statuses.shift() ?? 200;
      await new Promise<void>((r) => releases.push(r));
      return new Response("{}", { status });
    });
    const limited = fetch("u");
    const older = fetch("u");
    await flush();
    releases[0]?.();
    await limited;
    expect(gate.limit).toBe(1);
    releases[1]?.();
    await older;
    expect(gate.limit).toBe(1);
    const newer = fetch("u");
    await flush();
    releases[2]?.();
    await newer;
    expect(gate.limit).toBe(2);
  });

  it("never goes below one run, and treats 529 as a rate limit too", async () => {
    const gate = createRateGate({ max: 2 });
    for (let i = 0; i < 3; i++) await gate.wrap(answer(529))("u");
    expect(gate.limit).toBe(1);
    expect(gate.pausedUntil).toBe(0);
  });

  it.each([
    [{ "retry-after-ms": "250" }, 250],
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after": new Date(1_005_000).toUTCString() }, 5000],
    [{ "retry-after": "soon" }, 0],
    [{}, 0],
  ])("reads %j as %i ms", (headers, ms) => {
    expect(retryAfterMs(new Headers(headers), 1_000_000)).toBe(ms);
  });
});
