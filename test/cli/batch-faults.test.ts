import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/loop/events.js";
import { readSessionEvents } from "../../src/loop/transcript.js";
import {
  answerItem,
  answers,
  batchLines,
  freshStarts,
  ids,
  itemOf,
  restartedAfterProgress,
  resultLines,
} from "../support/batch-script.js";
import { runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\nmaxIterations: 5\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
const lines = resultLines;
const sessionsFolder = () => path.join(dir, ".agentmd/sessions");
const transcript = (id: string) => readSessionEvents(sessionsFolder(), id);
const batch = (file: string, more: string[] = [], onStart?: Parameters<typeof runBinAsync>[1]["onStart"]) =>
  runBinAsync(["batch", file, ...more], { cwd: dir, env: env(), ...(onStart && { onStart }) });

describe("agentmd batch: a result belongs to its item, one writer per session (built CLI, fake server)", () => {
  it("another file of the same name and id with another prompt is new work; a re-run says what it skipped and why", async () => {
    fake = await startFakeAnthropic(answers(4));
    mkdirSync(path.join(dir, "week1"));
    mkdirSync(path.join(dir, "week2"));
    writeFiles(dir, {
      "week1/reviews.jsonl": `${JSON.stringify({ id: "pr", prompt: "item one: read a.txt" })}\n`,
      "week2/reviews.jsonl": `${JSON.stringify({ id: "pr", prompt: "item two: read a.txt" })}\n`,
    });
    const first = await batch("week1/reviews.jsonl");
    expect(first.code).toBe(0);
    expect(lines(first.stdout)[0]).toMatchObject({ id: "pr", text: "answer to one" });

    const second = await batch("week2/reviews.jsonl");
    expect(second.code, second.stderr).toBe(0);
    const [line] = lines(second.stdout);
    expect(line).toMatchObject({ id: "pr", outcome: "done", text: "answer to two" });
    expect(line).not.toHaveProperty("skipped");
    expect(fake.requests.map(itemOf)).toEqual(["one", "one", "two", "two"]);
    expect(line?.sessionId).not.toBe(lines(first.stdout)[0]?.sessionId);

    const again = await batch("week2/reviews.jsonl");
    expect(again.code).toBe(0);
    expect(lines(again.stdout)[0]).toMatchObject({ id: "pr", text: "answer to two", skipped: true });
    expect(again.stderr).toContain(
      "batch reviews: 1 skipped, finished before with the same prompt, agent and project version: pr",
    );
    expect(fake.requests).toHaveLength(4);

    // The same item once agent.md changed is new work too.
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmaxIterations: 5\n---\nBe very brief.\n" });
    const changed = await batch("week2/reviews.jsonl");
    expect(lines(changed.stdout)[0]).not.toHaveProperty("skipped");
    expect(fake.requests).toHaveLength(6);
  });

  it("the same batch started twice at once runs each item once: the second leaves what the first runs, exit 75", async () => {
    // The first batch's answers are held until the second batch has ended: both its items are
    // still running while the second asks for them, however slow the machine.
    let secondEnded = (): void => {};
    const ended = new Promise<void>((resolve) => {
      secondEnded = resolve;
    });
    fake = await startFakeAnthropic(answers(2, 0, ended));
    writeFiles(dir, { "two.jsonl": batchLines(ids(2)) });
    const a = batch("two.jsonl", ["--concurrency", "2"]);
    await until(() => fake.requests.length >= 2, { what: "both items of the first batch started" });
    const b = await batch("two.jsonl", ["--concurrency", "2"]);
    secondEnded();
    const first = await a;
    expect(first.code, first.stderr).toBe(0);
    expect(lines(first.stdout).map((l) => l.outcome)).toEqual(["done", "done"]);
    expect(b.code, b.stderr).toBe(75);
    expect(b.stdout).toBe("");
    expect(b.stderr).toMatch(/r0 not run: the session \S+ is in use by another agentmd \(process \d+\)/);
    expect(b.stderr).toContain("2 being run by another agentmd (run the same command again once it ends)");
    // Two requests an item, each item started once, one run in each transcript.
    expect(fake.requests).toHaveLength(4);
    expect([...freshStarts(fake.requests).values()]).toEqual([1, 1]);
    for (const l of lines(first.stdout))
      expect(transcript(l.sessionId).filter((e) => e.type === "run_start" && e.depth === 0)).toHaveLength(1);
    expect(readdirSync(sessionsFolder()).filter((n) => n.endsWith(".lock"))).toEqual([]);

    // Run again once the first has ended: both finished before, nothing asked.
    const again = await batch("two.jsonl");
    expect(again.code).toBe(0);
    expect(lines(again.stdout).every((l) => l.skipped)).toBe(true);
    expect(fake.requests).toHaveLength(4);
  });

  it("a resumed item's totals count what its transcript says was paid, the killed part too", async () => {
    // The first turn is answered at once; the second never while the first process lives.
    let n = 0;
    const quick = answerItem();
    fake = await startFakeAnthropic(
      Array.from({ length: 6 }, () => (req: Parameters<typeof quick>[0]) => {
        n++;
        return n === 2 ? { kind: "no-answer" as const } : quick(req);
      }),
    );
    writeFiles(dir, { "one.jsonl": batchLines(["x"]) });
    const killed = await batch("one.jsonl", [], (child) => {
      void until(() => fake.requests.length >= 2, { what: "the second request" }).then(() =>
        child.kill("SIGKILL"),
      );
    });
    expect(killed.code).not.toBe(0);
    const resumed = await batch("one.jsonl");
    expect(resumed.code, resumed.stderr).toBe(0);
    const [r] = lines(resumed.stdout);
    expect(r).toMatchObject({ id: "x", outcome: "done", resumed: true, turns: 2 });
    const usage = transcript(r?.sessionId ?? "").filter(
      (e): e is Extract<RunEvent, { type: "usage" }> => e.type === "usage",
    );
    expect(usage).toHaveLength(2);
    const paid = usage.reduce((s, e) => s + e.usage.input_tokens, 0);
    expect(r?.usage.input_tokens).toBe(paid);
    expect(r?.costUsd).toBeCloseTo(
      usage.reduce((s, e) => s + e.costUsd, 0),
      10,
    );

    // Read back as finished (skipped), it counts the same.
    const again = await batch("one.jsonl");
    expect(lines(again.stdout)[0]).toMatchObject({ skipped: true, turns: 2, usage: { input_tokens: paid } });
  });
});

describe("agentmd batch: a session lock names one process, not only its id (built CLI, fake server)", () => {
  const ownStart = () => readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ")[19];
  const lockOf = () => {
    const name = readdirSync(sessionsFolder()).find((n) => n.endsWith(".lock"));
    if (!name) throw new Error("no lock was left");
    return path.join(sessionsFolder(), name);
  };

  it("a lock left by a killed batch that names a live process id with another start time (process 1 restarted, an id reused) is taken over; one naming this very process is held", async () => {
    let n = 0;
    const quick = answerItem();
    fake = await startFakeAnthropic(
      Array.from({ length: 8 }, () => (req: Parameters<typeof quick>[0]) => {
        n++;
        return n === 2 ? { kind: "no-answer" as const } : quick(req);
      }),
    );
    writeFiles(dir, { "one.jsonl": batchLines(["x"]) });
    const killed = await batch("one.jsonl", [], (child) => {
      void until(() => fake.requests.length >= 2, { what: "the second request" }).then(() =>
        child.kill("SIGKILL"),
      );
    });
    expect(killed.code).not.toBe(0);
    const lock = lockOf();
    const left = JSON.parse(readFileSync(lock, "utf8")) as { pid: number; started: string };
    expect(left.started).toMatch(/^\d+$/);

    // This process, as the lock names it: it lives, so the session is held.
    writeFileSync(lock, JSON.stringify({ ...left, pid: process.pid, started: ownStart() }));
    const held = await batch("one.jsonl");
    expect(held.code, held.stderr).toBe(75);
    expect(held.stderr).toContain(`in use by another agentmd (process ${process.pid})`);

    // This process's id with the killed batch's start time (as process 1 restarted in a container
    // finds its own id in the lock): not the holder.
    writeFileSync(lock, JSON.stringify({ ...left, pid: process.pid }));
    const resumed = await batch("one.jsonl");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(resumed.stdout)[0]).toMatchObject({ id: "x", outcome: "done", resumed: true });
    expect(readdirSync(sessionsFolder()).filter((n) => n.endsWith(".lock"))).toEqual([]);
  });
});

describe("agentmd batch > results.jsonl on a full disk (built CLI, fake server, a small tmpfs)", () => {
  let mounted: string | undefined;
  afterEach(() => {
    if (mounted) spawnSync("umount", [mounted]);
    mounted = undefined;
  });

  /** A 64 KiB tmpfs filled but for `room` bytes; /dev/full where mounting is not allowed. */
  function fullDisk(room: number): string {
    const where = path.join(dir, "disk");
    mkdirSync(where);
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", where]).status !== 0)
      return "/dev/full";
    mounted = where;
    try {
      writeFileSync(path.join(where, "filler"), Buffer.alloc(64 * 1024));
    } catch {
      // full: what is left is freed below
    }
    const filled = statSync(path.join(where, "filler")).size;
    truncateSync(path.join(where, "filler"), Math.max(0, filled - room));
    return path.join(where, "results.jsonl");
  }

  it("stops with one clear error, exit 1, no stack trace, every session released; the same command then finishes the rest", async () => {
    fake = await startFakeAnthropic(answers(12, 30));
    writeFiles(dir, { "twelve.jsonl": batchLines(ids(12)) });
    const out = fullDisk(1024);
    const r = await runBinAsync(["batch", "twelve.jsonl", "--concurrency", "4"], {
      cwd: dir,
      env: env(),
      stdoutFile: out,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /agentmd batch: cannot write the results to standard output: .*(ENOSPC|no space left)/i,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).not.toContain("internal error");
    expect(readdirSync(sessionsFolder()).filter((n) => n.endsWith(".lock"))).toEqual([]);

    const again = await batch("twelve.jsonl", ["--concurrency", "4"]);
    expect(again.code, again.stderr).toBe(0);
    expect(lines(again.stdout).map((l) => l.outcome)).toEqual(Array(12).fill("done"));
    // No item started over once it had an answer (a request cut off before its answer goes again).
    expect(restartedAfterProgress(fake.requests)).toEqual([]);
  });
});

describe("agentmd run -c while the session's run goes on (built CLI, fake server)", () => {
  it("is refused with exit 75 and a message that says why; once the run ended, it continues", async () => {
    // The first run's answer is held until the second run has been refused: however slow the
    // machine, the first run still goes on while the second asks.
    let refused = (): void => {};
    const secondDone = new Promise<void>((resolve) => {
      refused = resolve;
    });
    fake = await startFakeAnthropic([
      { kind: "message", heldUntil: secondDone, content: [{ type: "text", text: "first" }] },
      { kind: "message", content: [{ type: "text", text: "second" }] },
    ]);
    const first = runBinAsync(["run", "-p", "hello"], { cwd: dir, env: env() });
    await until(() => fake.requests.length >= 1, { what: "the first run's request" });
    const second = await runBinAsync(["run", "-p", "-c", "again"], { cwd: dir, env: env() });
    refused();
    expect(second.code).toBe(75);
    expect(second.stderr).toMatch(
      /the session \S+ is in use by another agentmd \(process \d+\); wait for it to end/,
    );
    expect(fake.requests).toHaveLength(1);
    const done = await first;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("first");
    const later = await runBinAsync(["run", "-p", "-c", "again"], { cwd: dir, env: env() });
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain("second");
    const [session] = readdirSync(sessionsFolder()).filter((f) => f.endsWith(".jsonl"));
    const events = transcript((session ?? "").replace(/\.jsonl$/, ""));
    expect(events.filter((e) => e.type === "run_start" && e.depth === 0)).toHaveLength(2);
  });
});
