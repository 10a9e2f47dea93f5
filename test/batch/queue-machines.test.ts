import type { ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import {
  answers,
  batchLines,
  freshStarts,
  ids,
  restartedAfterProgress,
  resultLines,
} from "../support/batch-script.js";
import { type CliRun, runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { heldItem } from "../support/held-item.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

// Workers as separate machines are to the queue: each from a checkout of its own (a copy of the
// project folder) with a home of its own (HOME, so its ~/.agentmd and trust file), sharing only
// Redis and the API.

let redis: RedisServer;
let root: string;
let cleanup: () => void;
let fake: FakeAnthropic;
const children: Child[] = [];

interface Child {
  child?: ChildProcess;
  done: Promise<CliRun>;
  stdout: string;
  stderr: string;
}

beforeAll(async () => {
  if (hasRedis) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  ({ dir: root, cleanup } = tempDir());
  writeFiles(path.join(root, "source"), {
    "agent.md": "---\nallowed-tools: Read\nmaxIterations: 400\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  });
  if (hasRedis) await redis.client.flushall();
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.child?.kill("SIGTERM");
    await c.done;
  }
  await fake?.close();
  cleanup();
});

/** A machine: a checkout of the project as it is now (a copy of its folder) and a home of its own. */
function machine(name: string): { checkout: string; home: string } {
  const checkout = path.join(root, name, "checkout");
  const home = path.join(root, name, "home");
  cpSync(path.join(root, "source"), checkout, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { checkout, home };
}

function background(
  args: string[],
  m: { checkout: string; home: string },
  onStart?: (c: ChildProcess) => void,
) {
  const c: Child = { done: Promise.resolve({ code: 0, stdout: "", stderr: "" }), stdout: "", stderr: "" };
  c.done = runBinAsync(args, {
    cwd: m.checkout,
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: m.home },
    onStart: (child) => {
      c.child = child;
      child.stdout?.on("data", (d: Buffer) => (c.stdout += d.toString()));
      child.stderr?.on("data", (d: Buffer) => (c.stderr += d.toString()));
      onStart?.(child);
    },
  });
  children.push(c);
  return c;
}

const worker = (m: { checkout: string; home: string }, concurrency = 3) => {
  const w = background(
    ["worker", "--redis", redis.url, "--concurrency", String(concurrency), "--lock-duration", "3000"],
    m,
  );
  return w;
};
const started = (w: Child) =>
  until(() => w.stderr.includes("at once"), { what: "the worker to start", timeoutMs: 30_000 });
const nameOf = (w: Child) => /agentmd worker (\S+): project/.exec(w.stderr)?.[1];
const wait = (file: string, m: { checkout: string; home: string }, onStart?: (c: ChildProcess) => void) =>
  background(["batch", file, "--redis", redis.url, "--wait"], m, onStart);
/** A key of the batch's one run (`results`, `totals`): each enqueue is a run of its own. */
async function runKey(kind: "results" | "totals", batch: string): Promise<string> {
  const found = await redis.client.keys(`agentmd:agentmd:${kind}:${batch}:*`);
  if (found.length > 1) throw new Error(`batch ${batch} has ${found.length} runs`);
  return found[0] ?? `agentmd:agentmd:${kind}:${batch}:none`;
}
const finished = async (batch: string) => redis.client.hlen(await runKey("results", batch));

describe.runIf(hasRedis)(
  "workers on separate machines: own checkouts, own homes (real Redis, built CLI)",
  () => {
    it("--wait prints each result as it comes: the first while an item still runs", async () => {
      const held = heldItem("slow");
      fake = await startFakeAnthropic(held.steps(12));
      const a = machine("a");
      const enqueuer = machine("laptop");
      writeFiles(enqueuer.checkout, { "s.jsonl": batchLines(["slow", ...ids(12)]) });
      await started(worker(a, 4));
      const w = wait("s.jsonl", enqueuer, (child) => {
        let out = "";
        child.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) held.release();
        });
      });
      const r = await w.done;
      expect(r.code, r.stderr).toBe(0);
      expect(held.releasedBy).toBe("test");
      const out = resultLines(r.stdout);
      expect(out).toHaveLength(13);
      expect(out[0]?.id).not.toBe("slow");
      expect(new Set(out.map((l) => l.id)).size).toBe(13);
      const progress = r.stderr.split("\n").filter((l) => l.startsWith("progress: "));
      expect(
        progress.some((l) => /^progress: \d+\/13 · 0 failed · \d+ running · \d+ waiting · /.test(l)),
      ).toBe(true);
      // The wait's own keys are gone with it; the batch's results stay.
      expect(await redis.client.keys("agentmd:agentmd:wait:*")).toEqual([]);
      expect(await finished("s")).toBe(13);
    }, 90_000);

    it("two machines, one SIGKILLed mid-run and a third started: its jobs are taken over and resumed, each result once", async () => {
      const N = 60;
      fake = await startFakeAnthropic(answers(N, 60));
      const [a, b, c, laptop] = [machine("a"), machine("b"), machine("c"), machine("laptop")];
      writeFiles(laptop.checkout, { "many.jsonl": batchLines(ids(N)) });
      const wa = worker(a);
      const wb = worker(b);
      await Promise.all([started(wa), started(wb)]);
      const w = wait("many.jsonl", laptop);
      await until(async () => (await finished("many")) >= 15, { what: "15 results", timeoutMs: 60_000 });
      wb.child?.kill("SIGKILL");
      const killedAt = await finished("many");
      const wc = worker(c);
      const r = await w.done;
      expect(r.code, `killed at ${killedAt} results; ${r.stderr}`).toBe(0);

      const out = resultLines(r.stdout);
      expect(out).toHaveLength(N);
      expect(new Set(out.map((l) => l.id)).size).toBe(N);
      for (const l of out) expect(l).toMatchObject({ outcome: "done", text: `answer to ${l.id}` });
      expect(await redis.client.hget(await runKey("totals", "many"), "runs")).toBe(String(N));
      // No run started over after it had shown progress: the killed machine's runs went on from
      // their transcripts in Redis, which the other machines' checkouts never held.
      expect(restartedAfterProgress(fake.requests)).toEqual([]);
      expect(freshStarts(fake.requests).size).toBe(N);
      const by = new Set(out.map((l) => l.worker));
      expect(by.has(nameOf(wa))).toBe(true);
      expect(by.has(nameOf(wc)) || by.has(nameOf(wa))).toBe(true);
      expect(out.filter((l) => l.worker === nameOf(wb)).length).toBeLessThanOrEqual(killedAt);
      for (const m of [a, b, c, laptop])
        expect(
          existsSync(path.join(m.checkout, ".agentmd/sessions"))
            ? readdirSync(path.join(m.checkout, ".agentmd/sessions"))
            : [],
        ).toEqual([]);
    }, 120_000);

    it("a rolling deploy: jobs of the new version wait for a worker of it, old workers leave them, --wait counts them", async () => {
      fake = await startFakeAnthropic(answers(30));
      const [old1, old2] = [machine("old1"), machine("old2")];
      // The new version: agent.md changed, and so the project's version.
      writeFiles(path.join(root, "source"), {
        "agent.md": "---\nallowed-tools: Read, Grep\nmaxIterations: 400\n---\nBe brief.\n",
      });
      const laptop = machine("laptop");
      writeFiles(laptop.checkout, { "new.jsonl": batchLines(ids(8, "n")) });
      const olds = [worker(old1), worker(old2)];
      await Promise.all(olds.map(started));
      const w = wait("new.jsonl", laptop);
      await until(
        () => /progress: 0\/8 · .* · 8 waiting for a worker of their project version/.test(w.stderr),
        {
          what: "--wait counting the jobs that wait for their version",
          timeoutMs: 60_000,
        },
      );
      expect(w.stderr).toMatch(/they wait for a worker of version sha256:\w+/);
      expect(fake.requests).toHaveLength(0);
      // The deploy goes on: the old workers are stopped (SIGTERM, as a deploy stops them), leaving
      // every job of the new version on the queue; the new version's worker runs them all. (Old and
      // new workers side by side on one job: queue-faults' rolling deploy.)
      for (const o of olds) o.child?.kill("SIGTERM");
      for (const o of olds) expect((await o.done).code).toBe(143);
      const fresh = worker(machine("new1"));
      const r = await w.done;
      expect(r.code, r.stderr).toBe(0);
      const out = resultLines(r.stdout) as BatchResult[];
      expect(out).toHaveLength(8);
      expect(new Set(out.map((l) => l.worker))).toEqual(new Set([nameOf(fresh)]));
      for (const o of olds) expect(resultLines(o.stdout)).toEqual([]);
      expect(await redis.client.zcard("bull:agentmd:failed")).toBe(0);
    }, 120_000);
  },
);
