import type { ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import { createRateLimit, type RateLimit } from "../../src/batch/rate-limit.js";
import { batchLines, ids, itemOf, resultLines } from "../support/batch-script.js";
import { type CliRun, runBinAsync } from "../support/cli.js";
import {
  type FakeAnthropic,
  type RecordedRequest,
  type Scripted,
  startFakeAnthropic,
} from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

/**
 * One rate limit for every worker of a queue, kept in Redis, and a queue batch's budget for all
 * its items together: two limits on two connections (what two workers hold), then two worker
 * processes against the fake API.
 */
let redis: RedisServer;
let connections: Redis[] = [];
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
const workers: { child?: ChildProcess; done: Promise<CliRun> }[] = [];

beforeAll(async () => {
  if (hasRedis) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  if (hasRedis) await redis.client.flushall();
});
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child?.kill("SIGTERM");
    await w.done;
  }
  await Promise.all(connections.map((c) => c.quit()));
  connections = [];
  await fake?.close();
  fake = undefined;
  cleanup();
});

/** A rate limit as a worker of queue `q` holds it: on a Redis connection of its own. */
function workerLimit(given?: { requests: number }): RateLimit {
  const client = new Redis(redis.url);
  connections.push(client);
  return createRateLimit({
    redis: { client, prefix: "agentmd:q:rate" },
    shortestWindowSeconds: 10,
    ...(given && { given }),
  });
}

/** Where the hold after a 429 is kept (rate-limiter-flexible's key for it). */
const HOLD_KEY = "agentmd:q:rate:hold";

const roundTrips = async () => {
  for (const c of connections) await c.ping();
};

describe.runIf(hasRedis)("one rate limit for all the workers of a queue (real Redis)", () => {
  it("two workers asking at once share one spacing: one request goes, the others wait their places", async () => {
    // 60 a minute: one a second, for both together.
    const a = workerLimit({ requests: 60 });
    const b = workerLimit({ requests: 60 });
    const controller = new AbortController();
    let taken = 0;
    const take = (l: RateLimit) =>
      l.take({ input: 0, output: 0 }, controller.signal).then(() => {
        if (!controller.signal.aborted) taken++;
      });
    const asked = Date.now();
    const all = [...Array.from({ length: 8 }, () => take(a)), ...Array.from({ length: 8 }, () => take(b))];
    // Sixteen places a second apart, shared out: the last is 15 s on, whoever holds it.
    await until(() => taken === 1 && Math.max(a.pausedUntil, b.pausedUntil) >= asked + 15_000, {
      what: "the first request gone and the places reserved",
    });
    expect(taken).toBe(1);
    expect(await a.left("requests")).toBe(0);
    expect(await b.left("requests")).toBe(0);
    controller.abort();
    await Promise.all(all);
    expect(taken).toBe(1);
  });

  it("a 429 with retry-after seen by one worker holds the other's requests until then", async () => {
    const a = workerLimit({ requests: 6000 });
    const b = workerLimit({ requests: 6000 });
    await a.observe(429, {}, 2000);
    expect(a.limited).toBe(1);
    expect(await redis.client.exists(HOLD_KEY)).toBe(1);
    let went = false;
    const taking = b.take({ input: 0, output: 0 }).then(() => {
      went = true;
    });
    await roundTrips();
    await roundTrips();
    expect(went).toBe(false);
    await taking;
    // It went once the hold Redis keeps had ended, not before.
    expect(await redis.client.exists(HOLD_KEY)).toBe(0);
  });

  it("a request taking its place as its own process sees a 429 does not go during the hold", async () => {
    const a = workerLimit({ requests: 6000 });
    let went = false;
    const taking = a.take({ input: 0, output: 0 }).then(() => {
      went = true;
    });
    // The 429 is seen while the request is between its look for a hold and its place.
    const observed = a.observe(429, {}, 2000);
    for (let i = 0; i < 6; i++) await roundTrips();
    await observed;
    expect(went).toBe(false);
    await taking;
    expect(await redis.client.exists(HOLD_KEY)).toBe(0);
  });

  it("the limits one worker's answer teaches are the other's too; until then one request goes", async () => {
    const a = workerLimit();
    const b = workerLimit();
    const probe = await a.take({ input: 0, output: 0 });
    let bGoes = false;
    const second = b.take({ input: 0, output: 0 }).then(() => {
      bGoes = true;
    });
    await roundTrips();
    await roundTrips();
    expect(bGoes).toBe(false);
    await a.observe(200, { requests: { limit: 60, remaining: 59 } }, 0, probe);
    await second;
    expect(b.limits).toEqual({ requests: 60 });
    expect(await redis.client.hgetall("agentmd:q:rate:limits")).toEqual({ requests: "60" });
    // The probe went before any spacing; the second request took the first place, the next is a
    // second on.
    expect(await a.left("requests")).toBe(0);
  });
});

const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake?.url ?? "" });

/** A worker process; resolves once it says it takes jobs. */
async function startWorkerProcess(concurrency: number): Promise<void> {
  const w: { child?: ChildProcess; done: Promise<CliRun> } = {
    done: Promise.resolve({ code: 0, stdout: "", stderr: "" }),
  };
  let said = "";
  w.done = runBinAsync(["worker", "--redis", redis.url, "--concurrency", String(concurrency)], {
    cwd: dir,
    env: env(),
    onStart: (child) => {
      w.child = child;
      child.stderr?.on("data", (d: string) => (said += d));
    },
  });
  workers.push(w);
  await until(() => said.includes("at once"), { what: "the worker to take jobs", timeoutMs: 30_000 });
}

/** One answer per item (no tool call), each costing `usd` on sonnet ($15 per million output tokens). */
const costly =
  (usd: number, delayMs: number, headers: Record<string, string> = {}) =>
  (req: RecordedRequest): Scripted => ({
    kind: "message",
    delayMs,
    headers,
    content: [{ type: "text", text: `answer to ${itemOf(req)}` }],
    usage: { input_tokens: 0, output_tokens: Math.round((usd / 15) * 1_000_000) },
  });

describe.runIf(hasRedis)("worker processes under one limit and one batch budget (real Redis)", () => {
  beforeEach(() => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmodel: sonnet\n---\nBe brief.\n" });
  });

  it("a 429 with retry-after answered to one worker holds both; the headers teach the queue's limit", async () => {
    const arrivals: number[] = [];
    const limits = {
      "anthropic-ratelimit-requests-limit": "6000",
      "anthropic-ratelimit-requests-remaining": "5999",
    };
    const step = (req: RecordedRequest): Scripted => {
      arrivals.push(Date.now());
      if (arrivals.length === 1)
        return { kind: "http-error", status: 429, headers: { "retry-after": "2", ...limits } };
      return costly(0.01, 50, limits)(req);
    };
    fake = await startFakeAnthropic(Array.from({ length: 40 }, () => step));
    writeFiles(dir, { "six.jsonl": batchLines(ids(6)) });
    await Promise.all([startWorkerProcess(2), startWorkerProcess(2)]);
    const r = await runBinAsync(["batch", "six.jsonl", "--redis", redis.url, "--wait"], {
      cwd: dir,
      env: env(),
    });
    expect(r.code).toBe(0);
    const out = resultLines(r.stdout);
    expect(out.map((x) => x.outcome)).toEqual(Array(6).fill("done"));
    // The first request (the one that learns the limit) was answered 429: every later one, from
    // either worker, waited for its retry-after.
    expect(arrivals).toHaveLength(7);
    const first = arrivals[0] ?? 0;
    for (const t of arrivals.slice(1)) expect(t).toBeGreaterThanOrEqual(first + 2000 - 50);
    expect(new Set(out.map((x) => x.worker)).size).toBe(2);
    // The headers taught the queue its limit, where every worker finds it.
    expect(await redis.client.hgetall("agentmd:agentmd:rate:limits")).toEqual({ requests: "6000" });
  }, 120_000);

  it("--max-budget-usd on a queue batch is for all its items on every worker: a worker stops items the other's spending reached", async () => {
    fake = await startFakeAnthropic(Array.from({ length: 40 }, () => costly(0.3, 150)));
    writeFiles(dir, { "ten.jsonl": batchLines(ids(10)) });
    await Promise.all([startWorkerProcess(1), startWorkerProcess(1)]);
    const r = await runBinAsync(
      ["batch", "ten.jsonl", "--redis", redis.url, "--wait", "--max-budget-usd", "1"],
      { cwd: dir, env: env() },
    );
    expect(r.code).toBe(1);
    const out = resultLines(r.stdout);
    expect(out).toHaveLength(10);
    const done = out.filter((x) => x.outcome === "done");
    const stopped = out.filter((x) => x.outcome === "limit");
    expect(done.length + stopped.length).toBe(10);
    for (const x of stopped) expect(x.message).toBe("Reached maximum budget ($1)");
    // Only requests checked against the shared total went: the cap, and at most one request in
    // flight per worker when it was reached.
    expect(fake.requests.length).toBe(done.length);
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(done.length).toBeLessThanOrEqual(5);
    // Kept for this run of the batch, not for every batch of its name (a week later starts afresh).
    const keys = await redis.client.keys("agentmd:agentmd:budget:ten:*");
    expect(keys).toHaveLength(1);
    const budget = await redis.client.hgetall(keys[0] as string);
    expect(budget.cap_usd).toBe("1");
    expect(Number(budget.spent_usd)).toBeCloseTo(0.3 * done.length, 6);
    // A worker whose own runs spent less than the cap stopped items: the shared total stopped them.
    const spentBy = (w: string | undefined, rs: BatchResult[]) =>
      rs.filter((x) => x.worker === w).reduce((n, x) => n + x.costUsd, 0);
    const stoppers = [...new Set(stopped.map((x) => x.worker))];
    expect(stoppers.some((w) => spentBy(w, done) < 1)).toBe(true);
  }, 120_000);
});
