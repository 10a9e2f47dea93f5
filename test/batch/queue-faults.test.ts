import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type answerItem, answers, batchLines, itemOf, resultLines } from "../support/batch-script.js";
import { type CliRun, runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";
import { until } from "../support/until.js";

let redis: RedisServer;
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
const children: { child?: ChildProcess; done: Promise<CliRun> }[] = [];

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
  redis?.resume();
  for (const c of children.splice(0)) {
    c.child?.kill("SIGTERM");
    await c.done;
  }
  await fake?.close();
  cleanup();
});

// Redis's answers are bounded at 2 s here (5 s by default): the tests that stop it wait less.
const env = () => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: fake.url,
  AGENTMD_REDIS_TIMEOUT_MS: "2000",
  HOME: path.join(dir, "home"),
});
const lines = resultLines;

/** The CLI in the background, stopped after the test if it is still running; `stderr` as it comes. */
function background(args: string[], cwd = dir) {
  const c: { child?: ChildProcess; done: Promise<CliRun>; stderr: string } = {
    done: Promise.resolve({ code: 0, stdout: "", stderr: "" }),
    stderr: "",
  };
  c.done = runBinAsync(args, {
    cwd,
    env: env(),
    onStart: (child) => {
      c.child = child;
      child.stderr?.on("data", (d: Buffer) => (c.stderr += d.toString()));
    },
  });
  children.push(c);
  return c;
}

const worker = (cwd = dir) =>
  background(["worker", "--redis", redis.url, "--concurrency", "2", "--lock-duration", "3000"], cwd);
const wait = (file: string, more: string[] = []) =>
  background(["batch", file, "--redis", redis.url, "--wait", ...more]);
/** The run a `batch --redis` said it queued (`--resume RUN` continues it). */
const runOf = (stderr: string) => /^batch \S+ run (\S+) \(/m.exec(stderr)?.[1] ?? "no run said";
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

describe.runIf(hasRedis)("the queue's faults, reproduced (real Redis, built CLI, fake server)", () => {
  it("a changed item with the same file name and id is new work; the unchanged one, with --resume, comes back marked skipped, and said", async () => {
    fake = await startFakeAnthropic(answers(4));
    mkdirSync(path.join(dir, "week1"));
    mkdirSync(path.join(dir, "week2"));
    writeFiles(dir, {
      "week1/reviews.jsonl": `${JSON.stringify({ id: "pr", prompt: "item one: read a.txt" })}\n`,
      "week2/reviews.jsonl": `${JSON.stringify({ id: "pr", prompt: "item two: read a.txt" })}\n`,
    });
    worker();
    const first = await wait("week1/reviews.jsonl").done;
    expect(first.code, first.stderr).toBe(0);
    const second = await wait("week2/reviews.jsonl").done;
    expect(second.code, second.stderr).toBe(0);
    expect(lines(second.stdout)[0]).toMatchObject({ id: "pr", text: "answer to two" });
    expect(lines(second.stdout)[0]).not.toHaveProperty("skipped");
    expect(fake.requests.map(itemOf)).toEqual(["one", "one", "two", "two"]);

    const again = await wait("week2/reviews.jsonl", ["--resume", runOf(second.stderr)]).done;
    expect(again.code).toBe(0);
    expect(lines(again.stdout)[0]).toMatchObject({ id: "pr", text: "answer to two", skipped: true });
    expect(again.stderr).toContain(
      "batch reviews: 1 skipped, finished before with the same prompt, agent and project version: pr",
    );
    expect(again.stderr).toContain("(1 finished before)");
    expect(fake.requests).toHaveLength(4);
  });

  it("week two's batch of the same name is a new run: its results and budget start fresh; --resume continues week one's", async () => {
    // Each answer costs $0.6 on sonnet ($15 a million output tokens): one worker running one item
    // at a time, a $1 budget pays two of a run's requests and stops its third item.
    const costly = () => ({
      kind: "message" as const,
      usage: { input_tokens: 0, output_tokens: 40_000 },
      content: [{ type: "text" as const, text: "done" }],
    });
    fake = await startFakeAnthropic(Array.from({ length: 10 }, costly));
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\nmodel: sonnet\n---\nBe brief.\n",
      "reviews.jsonl": batchLines(["a", "b", "c"]),
    });
    background(["worker", "--redis", redis.url, "--concurrency", "1", "--lock-duration", "3000"]);
    const budget = ["--max-budget-usd", "1"];
    const week1 = await wait("reviews.jsonl", budget).done;
    const run1 = runOf(week1.stderr);
    expect(
      lines(week1.stdout)
        .map((l) => l.outcome)
        .sort(),
    ).toEqual(["done", "done", "limit"]);
    expect(fake.requests).toHaveLength(2);

    // Week two: the same file, the same name, a new run: every item runs, from its own budget.
    const week2 = await wait("reviews.jsonl", budget).done;
    const run2 = runOf(week2.stderr);
    expect(run2).not.toBe(run1);
    expect(week2.stderr).toContain(
      `batch reviews run ${run2} (its budget and results; --resume ${run2} continues it): 3 queued, 0 already on the queue, 0 finished before`,
    );
    expect(
      lines(week2.stdout)
        .map((l) => l.outcome)
        .sort(),
    ).toEqual(["done", "done", "limit"]);
    expect(lines(week2.stdout).some((l) => l.skipped)).toBe(false);
    expect(fake.requests).toHaveLength(4);
    const totals = await redis.client.hgetall(`agentmd:agentmd:totals:reviews:${run2}`);
    expect(totals).toMatchObject({ runs: "3", failed: "1" });

    // Week one, continued: its results are its own (read back, nothing asked), its budget spent.
    const resumed = await wait("reviews.jsonl", ["--resume", run1]).done;
    expect(resumed.stderr).toContain("3 finished before");
    expect(lines(resumed.stdout).every((l) => l.skipped)).toBe(true);
    expect(
      lines(resumed.stdout)
        .map((l) => l.outcome)
        .sort(),
    ).toEqual(["done", "done", "limit"]);
    expect(fake.requests).toHaveLength(4);
    expect(
      Number(await redis.client.hget(`agentmd:agentmd:budget:reviews:${run1}`, "spent_usd")),
    ).toBeCloseTo(1.2, 6);
  }, 90_000);

  it("Redis restarted empty while --wait waits: it stops, says the jobs are gone, exits 1, and prints no stack trace", async () => {
    fake = await startFakeAnthropic([]);
    writeFiles(dir, { "one.jsonl": batchLines(["x"]) });
    const w = wait("one.jsonl");
    await until(() => w.stderr.includes("waiting for the workers"), { what: "the batch waiting" });
    await redis.restart();
    const r = await w.done;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "agentmd batch: the queue lost 1 job(s) of batch one with no result (x): Redis restarted without its data?",
    );
    expect(r.stderr).toContain("run the same command again to queue them anew");
    noStackTrace(r.stderr);
    expect(r.stderr.split("\n").filter((l) => l.includes("Redis:")).length).toBeLessThanOrEqual(4);
  }, 60_000);

  it("a worker keeps going through a Redis restart with one-line warnings, and runs what is queued after", async () => {
    fake = await startFakeAnthropic(answers(2));
    const w = worker();
    await until(() => w.stderr.includes("at version"), { what: "the worker started" });
    await redis.restart();
    writeFiles(dir, { "one.jsonl": batchLines(["y"]) });
    const r = await wait("one.jsonl").done;
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "y", outcome: "done" });
    noStackTrace(w.stderr);
  }, 60_000);

  it("--retry-failed with --redis queues a failed result again, and its run goes on to done", async () => {
    fake = await startFakeAnthropic([
      { kind: "http-error", status: 400, message: "bad request, for the test" },
      ...answers(2),
    ]);
    writeFiles(dir, { "one.jsonl": batchLines(["z"]) });
    worker();
    const failedRun = await wait("one.jsonl").done;
    expect(failedRun.code, failedRun.stderr).toBe(1);
    expect(lines(failedRun.stdout)[0]).toMatchObject({ id: "z", outcome: "error" });

    const plain = await wait("one.jsonl", ["--resume", runOf(failedRun.stderr)]).done;
    expect(plain.code).toBe(1);
    expect(lines(plain.stdout)[0]).toMatchObject({ outcome: "error", skipped: true });

    const retried = await wait("one.jsonl", ["--retry-failed", "--resume", runOf(failedRun.stderr)]).done;
    expect(retried.stderr).toContain("1 queued, 1 failed queued again");
    expect(retried.code, retried.stderr).toBe(0);
    expect(lines(retried.stdout)[0]).toMatchObject({ id: "z", outcome: "done", text: "answer to z" });
    const totals = await redis.client.hgetall(`agentmd:agentmd:totals:one:${runOf(failedRun.stderr)}`);
    expect(totals).toMatchObject({ runs: "1", failed: "0" });
  }, 60_000);

  it("a job refused for its project version waits for a worker of that version (a rolling deploy), said in --wait", async () => {
    fake = await startFakeAnthropic(answers(1));
    const { dir: old, cleanup: done } = tempDir();
    try {
      writeFiles(old, { "agent.md": "---\nallowed-tools: Read, Grep\n---\nBe brief.\n", "a.txt": "alpha\n" });
      const oldWorker = worker(old);
      writeFiles(dir, { "one.jsonl": batchLines(["v"]) });
      const w = wait("one.jsonl");
      await until(() => w.stderr.includes("they wait for a worker of version"), {
        what: "the batch saying what the job waits for",
        timeoutMs: 30_000,
      });
      expect(w.stderr).toMatch(
        /batch one: jobs made for project version sha256:\w+ were put back by \S+, whose project is sha256:\w+; they wait for a worker of version sha256:\w+/,
      );
      expect(fake.requests).toHaveLength(0);
      await until(() => oldWorker.stderr.includes("were put back by"), { what: "the old worker's notice" });
      worker();
      const r = await w.done;
      expect(r.code, r.stderr).toBe(0);
      expect(lines(r.stdout)[0]).toMatchObject({ id: "v", outcome: "done", text: "answer to v" });
      expect(await redis.client.zcard("bull:agentmd:failed")).toBe(0);
    } finally {
      done();
    }
  }, 60_000);

  it("Redis accepts connections and never answers (SIGSTOP): worker, batch --wait, enqueue and view --redis each say so in one line and exit 1", async () => {
    fake = await startFakeAnthropic([]);
    writeFiles(dir, { "one.jsonl": batchLines(["x"]) });
    redis.pause();
    const runs = await Promise.all([
      worker().done,
      wait("one.jsonl").done,
      background(["enqueue", "one.jsonl", "--redis", redis.url]).done,
      background(["view", "--redis", redis.url, "--port", "0"]).done,
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+\/?: no answer within 2 s\n$/,
      );
      noStackTrace(r.stderr);
    }
  }, 60_000);

  it("Redis stops answering mid-run: batch --wait exits 1 saying so; a worker says each failed try, then, answered again, runs what is queued", async () => {
    fake = await startFakeAnthropic(answers(2));
    writeFiles(dir, { "one.jsonl": batchLines(["x"]), "two.jsonl": batchLines(["y"]) });
    const waiting = wait("one.jsonl");
    await until(() => waiting.stderr.includes("waiting for the workers"), { what: "the batch waiting" });
    redis.pause();
    const stopped = await waiting.done;
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stderr).toMatch(/agentmd batch: Redis at \S+ did not answer within 2 s\n$/);
    noStackTrace(stopped.stderr);

    redis.resume();
    const w = worker();
    await until(() => w.stderr.includes("at version"), { what: "the worker started" });
    redis.pause();
    const failures = () =>
      w.stderr.split("\n").filter((l) => /did not answer within 2 s \(retrying\)$/.test(l));
    await until(() => failures().length >= 2, { what: "two lines of failed tries", timeoutMs: 30_000 });
    redis.resume();
    await until(() => w.stderr.includes("answers again"), { what: "the worker seeing Redis again" });
    const r = await wait("two.jsonl").done;
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => [l.id, l.outcome])).toEqual([["y", "done"]]);
    noStackTrace(w.stderr);
  }, 90_000);

  it("Redis refuses writes (maxmemory, noeviction) mid-run: the run stops before its tool call, says why; once Redis takes writes, it goes on and the call runs once", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash\n---\nBe brief.\n",
      "one.jsonl": batchLines(["x"]),
    });
    let n = 0;
    fake = await startFakeAnthropic(
      Array.from({ length: 8 }, () => (req: Parameters<ReturnType<typeof answerItem>>[0]) => {
        n++;
        const last = (req.body.messages as { content: unknown }[]).at(-1)?.content;
        const answered = Array.isArray(last) && last.some((b) => b.type === "tool_result");
        // The first answer is sent once Redis refuses writes: its tool call cannot be recorded.
        if (n === 1) void redis.client.config("SET", "maxmemory", "1");
        return answered
          ? { kind: "message" as const, content: [{ type: "text" as const, text: "answer to x" }] }
          : {
              kind: "message" as const,
              delayMs: 200,
              content: [
                { type: "tool_use" as const, name: "Bash", input: { command: "echo ran >> side.txt" } },
              ],
            };
      }),
    );
    await redis.client.config("SET", "maxmemory-policy", "noeviction");
    const w = worker();
    await until(() => w.stderr.includes("at version"), { what: "the worker started" });
    const enqueued = await background(["enqueue", "one.jsonl", "--redis", redis.url]).done;
    expect(enqueued.code).toBe(0);
    await until(() => /job \S+ \(x\): the run stopped: cannot write the transcript .*OOM/.test(w.stderr), {
      what: "the worker saying the run stopped, unrecorded",
    });
    expect(existsSync(path.join(dir, "side.txt"))).toBe(false);
    await redis.client.config("SET", "maxmemory", "0");
    const r = await wait("one.jsonl", ["--resume", runOf(enqueued.stderr)]).done;
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "x", outcome: "done" });
    expect(readFileSync(path.join(dir, "side.txt"), "utf8")).toBe("ran\n");
    noStackTrace(w.stderr);
  }, 90_000);

  it("a worker killed after the model's answer was recorded, before its tool ran: the next worker runs the call, without asking the model that turn again", async () => {
    // A PreToolUse hook holds the first call (it says so with a file) until its worker is killed.
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash\n---\nBe brief.\n",
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sh hold.sh" }] }] },
      }),
      "hold.sh":
        "[ -e held ] && exit 0\ntouch held\ni=0\nwhile [ $i -lt 300 ] && [ ! -e release ]; do sleep 0.1; i=$((i+1)); done\n",
      "one.jsonl": batchLines(["x"]),
    });
    mkdirSync(path.join(dir, "home"));
    trustProject(dir, path.join(dir, "home"));
    fake = await startFakeAnthropic(
      Array.from({ length: 6 }, () => (req: Parameters<ReturnType<typeof answerItem>>[0]) => {
        const last = (req.body.messages as { content: unknown }[]).at(-1)?.content;
        const answered = Array.isArray(last) && last.some((b) => b.type === "tool_result");
        return answered
          ? { kind: "message" as const, content: [{ type: "text" as const, text: "answer to x" }] }
          : {
              kind: "message" as const,
              content: [
                {
                  type: "tool_use" as const,
                  name: "Bash",
                  input: { command: "echo ran >> side.txt; echo bash-ran" },
                },
              ],
            };
      }),
    );
    const first = worker();
    await until(() => first.stderr.includes("at version"), { what: "the worker started" });
    const enqueued = await background(["enqueue", "one.jsonl", "--redis", redis.url]).done;
    expect(enqueued.code).toBe(0);
    await until(() => existsSync(path.join(dir, "held")), { what: "the hook holding the call" });
    first.child?.kill("SIGKILL");
    await first.done;
    worker();
    const r = await wait("one.jsonl", ["--resume", runOf(enqueued.stderr)]).done;
    writeFiles(dir, { release: "" });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "x", outcome: "done", text: "answer to x" });
    expect(readFileSync(path.join(dir, "side.txt"), "utf8")).toBe("ran\n");
    // Two requests: the tool call, and the one its result went to; the call was not asked again.
    expect(fake.requests).toHaveLength(2);
    const results = (fake.requests[1]?.body.messages as { content: unknown }[] | undefined)?.at(-1)?.content;
    expect(JSON.stringify(results)).toContain("bash-ran");
    expect(JSON.stringify(results)).not.toMatch(/Interrupted|outcome is unknown/);
  }, 90_000);
});
