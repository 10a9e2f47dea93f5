import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answers,
  batchLines,
  freshStarts,
  ids,
  itemOf,
  itemPrompt,
  restartedAfterProgress,
  resultLines,
} from "../support/batch-script.js";
import { runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\nmaxIterations: 5\n---\nBe brief.\n",
    "commands/shout.md": "---\ndescription: Shouts.\n---\nSay $1 loudly.\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
const lines = resultLines;
const sessions = () => readdirSync(path.join(dir, ".agentmd/sessions")).sort();

describe("agentmd batch (built CLI, fake server)", () => {
  it("runs every line in its own session, prints one JSON line per run, and exits 0", async () => {
    fake = await startFakeAnthropic(answers(3));
    writeFiles(dir, {
      "runs.jsonl": `${batchLines(ids(3))}{"id": "cmd", "line": "/shout hello"}\n`,
    });
    fake.push({ kind: "message", content: [{ type: "text", text: "HELLO" }] });
    const r = await runBinAsync(["batch", "runs.jsonl", "--concurrency", "2"], { cwd: dir, env: env() });
    expect(r.stderr).toMatch(/batch runs: 4 done, 0 failed of 4/);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((l) => l.id).sort()).toEqual(["cmd", "r0", "r1", "r2"]);
    for (const l of out.filter((x) => x.id !== "cmd"))
      expect(l).toMatchObject({ outcome: "done", text: `answer to ${l.id}`, turns: 2 });
    const shout = fake.requests.find((q) => JSON.stringify(q.body.messages).includes("Say hello loudly."));
    expect(shout).toBeDefined();
    expect(new Set(out.map((l) => l.sessionId)).size).toBe(4);
    expect(sessions()).toEqual(out.map((l) => `${l.sessionId}.jsonl`).sort());
  });

  it("runs 16 at once with no warning from Node on standard error", async () => {
    fake = await startFakeAnthropic(answers(16, 50));
    writeFiles(dir, { "wide.jsonl": batchLines(ids(16)) });
    const r = await runBinAsync(["batch", "wide.jsonl", "--concurrency", "16"], { cwd: dir, env: env() });
    expect(r.stderr).toMatch(/16 done, 0 failed of 16/);
    expect(r.stderr).not.toMatch(/Warning|listeners/);
    expect(r.code).toBe(0);
  });

  it("skips finished ids when run again, and resumes runs Ctrl-C interrupted from their transcripts", async () => {
    fake = await startFakeAnthropic(answers(6, 150));
    writeFiles(dir, { "six.jsonl": batchLines(ids(6)) });
    const first = await runBinAsync(["batch", "six.jsonl", "--concurrency", "2"], {
      cwd: dir,
      env: env(),
      onStart: (child) => {
        let out = "";
        child.stdout?.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.split("\n").length - 1 === 2) child.kill("SIGINT");
        });
      },
    });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain("run the same command again to resume");
    const finishedFirst = lines(first.stdout);
    expect(finishedFirst.length).toBeLessThan(6);

    const askedBefore = fake.requests.length;
    const second = await runBinAsync(["batch", "six.jsonl", "--concurrency", "2"], { cwd: dir, env: env() });
    expect(second.code).toBe(0);
    const out = lines(second.stdout);
    expect(out.map((l) => l.id).sort()).toEqual(ids(6));
    expect(out.filter((l) => l.skipped).map((l) => l.id)).toEqual(
      expect.arrayContaining(finishedFirst.map((l) => l.id)),
    );
    expect(out.filter((l) => l.resumed).length).toBeGreaterThanOrEqual(1);
    for (const l of out) expect(l).toMatchObject({ outcome: "done", text: `answer to ${l.id}` });
    // Interrupted runs went on from their transcripts; finished ones asked the model nothing more.
    expect(restartedAfterProgress(fake.requests)).toEqual([]);
    expect([...freshStarts(fake.requests).keys()].sort()).toEqual(ids(6));
    const done = new Set(finishedFirst.map((l) => l.id));
    expect(fake.requests.slice(askedBefore).filter((q) => done.has(itemOf(q) ?? ""))).toEqual([]);
  });

  it("reports a failed run in its line and exits 1; run again, it asks the model nothing", async () => {
    fake = await startFakeAnthropic([]);
    fake.push((req) =>
      itemOf(req) === "bad"
        ? { kind: "http-error", status: 400, message: "bad request here" }
        : { kind: "message", content: [{ type: "text", text: "fine" }] },
    );
    fake.push((req) =>
      itemOf(req) === "bad"
        ? { kind: "http-error", status: 400, message: "bad request here" }
        : { kind: "message", content: [{ type: "text", text: "fine" }] },
    );
    writeFiles(dir, {
      "two.jsonl": `${JSON.stringify({ id: "bad", prompt: itemPrompt("bad") })}\n${JSON.stringify({ id: "ok", prompt: itemPrompt("ok") })}\n`,
    });
    const r = await runCli(["batch", "two.jsonl"], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    const bad = lines(r.stdout).find((l) => l.id === "bad");
    expect(bad).toMatchObject({ outcome: "error" });
    expect(bad?.message).toContain("bad request here");
    const asked = fake.requests.length;
    const again = await runCli(["batch", "two.jsonl"], { cwd: dir, env: env() });
    expect(again.code).toBe(1);
    expect(lines(again.stdout).every((l) => l.skipped)).toBe(true);
    expect(fake.requests.length).toBe(asked);
  });

  it("refuses a file with bad lines before running anything (exit 2), and explains its flags", async () => {
    fake = await startFakeAnthropic([]);
    writeFiles(dir, {
      "bad.jsonl": '{"id": "a", "prompt": "x"}\nnot json\n{"id": "a", "prompt": "y"}\n{"id": "b"}\n',
    });
    const r = await runCli(["batch", "bad.jsonl"], { cwd: dir, env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bad.jsonl:2: not JSON");
    expect(r.stderr).toContain("bad.jsonl:3: the id 'a' is used on line 1 already");
    expect(r.stderr).toContain("bad.jsonl:4: give exactly one of 'prompt'");
    expect(fake.requests).toHaveLength(0);
    const help = await runCli(["batch", "--help"], { cwd: dir });
    expect(help.stdout).toContain("--concurrency N");
    expect(help.stdout).toMatch(/Example:\n {2}agentmd batch /);
    const wrong = await runCli(["batch", "bad.jsonl", "--wait"], { cwd: dir });
    expect(wrong.code).toBe(2);
    for (const [command, flag] of [
      ["worker", "--lock-duration MS"],
      ["enqueue", "--batch-id NAME"],
    ] as const) {
      const h = await runCli([command, "--help"], { cwd: dir });
      expect(h.stdout).toContain(flag);
      expect(h.stdout).toMatch(new RegExp(`Example:\n {2}.*agentmd ${command} `));
    }
    const top = await runCli(["--help"], { cwd: dir });
    expect(top.stdout).toMatch(/batch FILE\.jsonl .*\n {2}worker .*\n {2}enqueue FILE\.jsonl/);
  });

  it("runs an item in its own working folder, and fails one whose folder does not exist", async () => {
    fake = await startFakeAnthropic(answers(1));
    writeFiles(dir, {
      "repos/a/a.txt": "in a\n",
      "cwd.jsonl": `${JSON.stringify({ id: "r0", prompt: itemPrompt("r0"), cwd: "repos/a" })}\n${JSON.stringify({ id: "lost", prompt: "x", cwd: "nowhere" })}\n`,
    });
    const r = await runCli(["batch", "cwd.jsonl"], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    const out = lines(r.stdout);
    expect(out.find((l) => l.id === "r0")).toMatchObject({ outcome: "done" });
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain("in a");
    expect(out.find((l) => l.id === "lost")?.message).toMatch(/working folder .*nowhere does not exist/);
  });

  it("reads the items from standard input with -", async () => {
    fake = await startFakeAnthropic(answers(2));
    const r = await runBinAsync(["batch", "-", "--batch-id", "piped"], {
      cwd: dir,
      env: env(),
      input: batchLines(ids(2)),
    });
    expect(r.code).toBe(0);
    expect(
      lines(r.stdout)
        .map((l) => l.id)
        .sort(),
    ).toEqual(ids(2));
    expect(sessions().every((s) => s.startsWith("piped-"))).toBe(true);
    expect(readFileSync(path.join(dir, ".agentmd/sessions", sessions()[0] ?? ""), "utf8")).toContain(
      "run_end",
    );
  });
});
