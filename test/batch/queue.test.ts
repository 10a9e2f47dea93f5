import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import { startWorker } from "../../src/batch/start-worker.js";
import type { RunEvent } from "../../src/loop/events.js";
import { readSessionEvents } from "../../src/loop/transcript.js";
import {
  answers,
  batchLines,
  freshStarts,
  ids,
  restartedAfterProgress,
  resultLines,
} from "../support/batch-script.js";
import { type CliRun, runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";
import { writeFiles } from "../support/tools.js";
import { trustingAll } from "../support/trust.js";
import { until as untilShared } from "../support/until.js";

let redis: RedisServer;
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
const workers: { child?: ChildProcess; done: Promise<CliRun> }[] = [];

beforeAll(async () => {
  if (hasRedis) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n", "a.txt": "alpha\n" });
  if (hasRedis) await redis.client.flushall();
});
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child?.kill("SIGTERM");
    await w.done;
  }
  await fake?.close();
  cleanup();
});

const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
const lines = resultLines;

/** A worker process on the test's Redis, with short locks so that a killed one's jobs come back soon. */
function startWorkerProcess(cwd: string, concurrency = 4) {
  const w: { child?: ChildProcess; done: Promise<CliRun> } = {
    done: Promise.resolve({ code: 0, stdout: "", stderr: "" }),
  };
  w.done = runBinAsync(
    ["worker", "--redis", redis.url, "--concurrency", String(concurrency), "--lock-duration", "3000"],
    { cwd, env: env(), onStart: (child) => (w.child = child) },
  );
  workers.push(w);
  return w;
}

/** Polls Redis (another process's state) until `check` holds, or fails after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  await untilShared(check, { what, timeoutMs: ms });
}

/** A key of the batch's one run (`results`, `totals`): each enqueue is a run of its own. */
async function runKey(kind: "results" | "totals", batch: string): Promise<string> {
  const found = await redis.client.keys(`agentmd:agentmd:${kind}:${batch}:*`);
  if (found.length > 1) throw new Error(`batch ${batch} has ${found.length} runs`);
  return found[0] ?? `agentmd:agentmd:${kind}:${batch}:none`;
}

/** An item's session: from its result (the id covers its run, prompt, agent and project version). */
const sessionOf = async (batch: string, id: string): Promise<string> => {
  for (const v of Object.values(await redis.client.hgetall(await runKey("results", batch)))) {
    const r = JSON.parse(v) as BatchResult;
    if (r.id === id) return r.sessionId;
  }
  throw new Error(`no result for ${id} in batch ${batch}`);
};

const transcriptOf = async (batch: string, id: string) =>
  (await redis.client.lrange(`agentmd:agentmd:transcript:${await sessionOf(batch, id)}`, 0, -1)).map(
    (l) => JSON.parse(l) as RunEvent,
  );

describe.runIf(hasRedis)(
  "runs on a queue: agentmd worker, enqueue, batch --redis --wait (real Redis)",
  () => {
    it("a worker runs what was enqueued, keeps transcripts and results in Redis; enqueuing that run again (--resume) adds nothing", async () => {
      fake = await startFakeAnthropic(answers(10));
      writeFiles(dir, { "ten.jsonl": batchLines(ids(10)) });
      startWorkerProcess(dir);
      const r = await runBinAsync(["batch", "ten.jsonl", "--redis", redis.url, "--wait"], {
        cwd: dir,
        env: env(),
      });
      expect(r.stderr).toMatch(
        /batch ten run (\S+) \(its budget and results; --resume \1 continues it\): 10 queued, 0 already on the queue, 0 finished before/,
      );
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out.map((l) => l.id).sort()).toEqual(ids(10).sort());
      for (const l of out) expect(l).toMatchObject({ outcome: "done", text: `answer to ${l.id}`, turns: 2 });
      expect(await redis.client.hlen(await runKey("results", "ten"))).toBe(10);
      const totals = await redis.client.hgetall(await runKey("totals", "ten"));
      expect(totals).toMatchObject({ runs: "10", failed: "0" });
      expect(Number(totals.input_tokens)).toBeGreaterThan(0);
      const events = await transcriptOf("ten", "r3");
      expect(events[0]).toMatchObject({ type: "run_start" });
      expect(events.at(-1)).toMatchObject({ type: "run_end", outcome: "done", text: "answer to r3" });

      const run = /batch ten run (\S+) /.exec(r.stderr)?.[1] ?? "";
      const again = await runCli(["enqueue", "ten.jsonl", "--redis", redis.url, "--resume", run], {
        cwd: dir,
      });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        batch: "ten",
        run,
        added: 0,
        queued: 0,
        finished: 10,
      });
      expect(fake.requests).toHaveLength(20);
    });

    it("a worker stopped with Ctrl-C finishes its running runs and leaves the rest on the queue", async () => {
      fake = await startFakeAnthropic(answers(12, 100));
      writeFiles(dir, { "twelve.jsonl": batchLines(ids(12)) });
      const enq = await runCli(["enqueue", "twelve.jsonl", "--redis", redis.url], { cwd: dir });
      expect(JSON.parse(enq.stdout)).toMatchObject({ added: 12 });
      const w = startWorkerProcess(dir, 2);
      await until(
        "a first result",
        async () => (await redis.client.hlen(await runKey("results", "twelve"))) >= 1,
      );
      w.child?.kill("SIGINT");
      const r = await w.done;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain("finishing the running runs");
      const stored = await redis.client.hlen(await runKey("results", "twelve"));
      expect(lines(r.stdout)).toHaveLength(stored);
      expect(stored).toBeLessThan(12);
      expect(await redis.client.llen("bull:agentmd:wait")).toBe(12 - stored);
      expect(await redis.client.llen("bull:agentmd:active")).toBe(0);
    });

    it("a worker in this process keeps transcripts in a shared folder with --transcripts", async () => {
      fake = await startFakeAnthropic(answers(3));
      writeFiles(dir, { "three.jsonl": batchLines(ids(3)) });
      const shared = path.join(dir, "shared");
      const worker = await startWorker({
        redisUrl: redis.url,
        queue: "agentmd",
        concurrency: 2,
        projectDir: dir,
        env: env(),
        trust: trustingAll(path.join(dir, "home")),
        lockDurationMs: 3000,
        transcriptsDir: shared,
      });
      try {
        const r = await runCli(["batch", "three.jsonl", "--redis", redis.url, "--wait"], { cwd: dir });
        expect(r.code).toBe(0);
        expect(lines(r.stdout).map((l) => l.worker)).toEqual(Array(3).fill(worker.name));
      } finally {
        await worker.close();
      }
      expect(readdirSync(shared).sort()).toEqual(
        (await Promise.all(ids(3).map(async (id) => `${await sessionOf("three", id)}.jsonl`))).sort(),
      );
      const events = readSessionEvents(shared, await sessionOf("three", "r1"));
      expect(events.at(-1)).toMatchObject({ type: "run_end", outcome: "done", text: "answer to r1" });
      expect(await redis.client.keys("agentmd:agentmd:transcript:*")).toEqual([]);
    });

    it("says why when Redis cannot be reached, and exits 1", async () => {
      fake = await startFakeAnthropic([]);
      const r = await runCli(["worker", "--redis", "redis://127.0.0.1:1"], { cwd: dir, env: env() });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("agentmd: cannot reach Redis at redis://127.0.0.1:1");
      writeFiles(dir, { "one.jsonl": batchLines(["x"]) });
      const e = await runCli(["enqueue", "one.jsonl", "--redis", "http://x"], { cwd: dir });
      expect(e.code).toBe(1);
      expect(e.stderr).toContain("is not a redis:// or rediss:// URL");
    });

    it("3 workers, 300 runs, a worker killed with SIGKILL twice: every result exactly once, no finished run started again", async () => {
      const N = 300;
      fake = await startFakeAnthropic(answers(N, 40));
      writeFiles(dir, { "many.jsonl": batchLines(ids(N)) });
      for (let i = 0; i < 3; i++) startWorkerProcess(dir);
      const batch = runBinAsync(["batch", "many.jsonl", "--redis", redis.url, "--wait"], {
        cwd: dir,
        env: env(),
      });
      const finished = async () => redis.client.hlen(await runKey("results", "many"));
      // Two kills at random moments, the second while the first one's jobs may still be coming back.
      const kills = [40 + Math.floor(Math.random() * 60), 150 + Math.floor(Math.random() * 60)];
      const killed: number[] = [];
      for (const at of kills) {
        await until(`${at} results`, async () => (await finished()) >= at);
        const live = workers.filter(
          (w) => w.child && w.child.exitCode === null && w.child.signalCode === null,
        );
        const victim = live[Math.floor(Math.random() * live.length)];
        victim?.child?.kill("SIGKILL");
        killed.push(await finished());
        startWorkerProcess(dir);
      }
      const r = await batch;
      expect(r.code, `kills at ${killed.join(", ")} results; ${r.stderr}`).toBe(0);

      const out = lines(r.stdout);
      expect(out).toHaveLength(N);
      expect(new Set(out.map((l) => l.id)).size).toBe(N);
      for (const l of out) expect(l).toMatchObject({ outcome: "done", text: `answer to ${l.id}` });
      expect(await redis.client.hlen(await runKey("results", "many"))).toBe(N);
      expect(await redis.client.hget(await runKey("totals", "many"), "runs")).toBe(String(N));

      // Killed workers' runs were continued from their transcripts, never started over.
      expect(restartedAfterProgress(fake.requests)).toEqual([]);
      expect(freshStarts(fake.requests).size).toBe(N);
      for (const id of ids(N)) {
        const top = (await transcriptOf("many", id)).filter((e) => e.depth === 0);
        const end = top.findIndex((e) => e.type === "run_end" && e.outcome !== "aborted");
        expect(
          end,
          `${id}: ${JSON.stringify(top.map((e) => (e.type === "run_end" ? `end:${e.outcome}` : e.type)))} ${JSON.stringify(out.find((l) => l.id === id))}`,
        ).toBeGreaterThan(0);
        expect(
          top.slice(end + 1).filter((e) => e.type === "run_start"),
          `${id} was started again after it finished`,
        ).toEqual([]);
        // A run a kill cut after a finished turn was picked up again, and says it was resumed.
        const second = top.findIndex((e, i) => i > 0 && e.type === "run_start");
        if (second > 0 && top.slice(0, second).some((e) => e.type === "turn_end"))
          expect(out.find((l) => l.id === id)?.resumed, `${id} was cut after a turn`).toBe(true);
      }
    }, 120_000);
  },
);
