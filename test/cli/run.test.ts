import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Bash(git:*)\nmaxIterations: 5\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const env = () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url });
const steps = () => [
  {
    kind: "message" as const,
    content: [{ type: "tool_use" as const, name: "Read", input: { file_path: "a.txt" } }],
  },
  {
    kind: "message" as const,
    content: [{ type: "tool_use" as const, name: "Bash", input: { command: "rm -rf ./x" } }],
  },
  { kind: "message" as const, content: [{ type: "text" as const, text: "Read it; could not delete." }] },
];

/**
 * Runs the CLI on one Bash call and sends it `signal` once the command has written `ready` (or
 * `afterMs` after the call starts, for a command that writes nothing).
 */
async function signalDuringBash(command: string, signal: NodeJS.Signals, afterMs: number, ready?: string) {
  fake = await startFakeAnthropic([
    { kind: "message", content: [{ type: "tool_use", name: "Bash", input: { command } }] },
  ]);
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nx\n" });
  return runBinAsync(["run", "--output", "stream-json", "wait"], {
    cwd: dir,
    env: env(),
    onStart: (child) => {
      child.stdout?.on("data", (d: Buffer) => {
        if (!d.toString().includes('"tool_start"')) return;
        if (!ready) setTimeout(() => child.kill(signal), afterMs);
        else void waitForFile(path.join(dir, ready)).then(() => child.kill(signal));
      });
    },
  });
}

/** Polls for a file another process writes (its existence cannot be awaited otherwise). */
async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 400 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
}

describe("agentmd run (built CLI, fake server)", () => {
  it("streams text, shows each tool call with its decision, and ends with a summary; exit 0", async () => {
    fake = await startFakeAnthropic(steps());
    const r = await runBinAsync(["run", "read a.txt then delete x"], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^⏺ Read a\.txt → ok \(\d+ ms\)$/m);
    expect(r.stdout).toMatch(
      /^⏺ Bash rm -rf \.\/x → denied: Bash\(rm -rf \.\/x\) is not allowed: this run allows Bash only for: git:\*\. The tool was not executed\. \(\d+ ms\)$/m,
    );
    expect(r.stdout).toContain("Read it; could not delete.");
    expect(r.stdout).toMatch(/— done · 3 turns · /);
    expect(fake.requests[0]?.body.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "read a.txt then delete x", cache_control: { type: "ephemeral" } }],
    });
  });

  it("reads the prompt from standard input, and prints JSON with --output json", async () => {
    fake = await startFakeAnthropic(steps());
    const r = await runBinAsync(["run", "--output", "json"], { cwd: dir, env: env(), input: "from stdin" });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ outcome: "done", text: "Read it; could not delete.", turns: 3 });
    expect(fake.requests[0]?.body.messages[0]?.content).toEqual([
      { type: "text", text: "from stdin", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("prints every event as a JSON line with --output stream-json, and resumes a session", async () => {
    fake = await startFakeAnthropic([
      ...steps(),
      { kind: "message", content: [{ type: "text", text: "again" }] },
    ]);
    const r = await runBinAsync(["run", "--output", "stream-json", "go"], { cwd: dir, env: env() });
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("run_start");
    expect(events.at(-1).type).toBe("run_end");
    const again = await runBinAsync(
      ["run", "--resume", events[0].sessionId, "--output", "json", "and now?"],
      { cwd: dir, env: env() },
    );
    expect(JSON.parse(again.stdout).text).toBe("again");
    expect(fake.requests[3]?.body.messages).toHaveLength(7);
  });

  it("exits 1 with the error on an API failure and with a limit, 2 when permissions refuse the run", async () => {
    fake = await startFakeAnthropic([{ kind: "http-error", status: 400, message: "bad request here" }]);
    const bad = await runBinAsync(["run", "x"], { cwd: dir, env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      `error: the model API at ${fake.url} answered HTTP 400 (invalid_request_error): bad request here`,
    );
    writeFiles(dir, { "agent.md": "---\nallowed-tools: NoSuchTool\n---\nx\n" });
    const refused = await runBinAsync(["run", "x"], { cwd: dir, env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(
      "no entry of the allow-list names a tool that exists in this run (NoSuchTool)",
    );
  });

  it("aborts on Ctrl-C with exit 130, answering the pending call as interrupted", async () => {
    const r = await signalDuringBash("git --version && sleep 30", "SIGINT", 200);
    expect(r.code).toBe(130);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ name: "Bash", isError: true });
    expect(events.some((e) => e.type === "abort")).toBe(true);
  });

  it("leaves no command running when it is terminated (SIGTERM)", async () => {
    const r = await signalDuringBash(
      "sleep 30 & echo $! > pid.tmp; mv pid.tmp pid; wait",
      "SIGTERM",
      0,
      "pid",
    );
    expect(r.code).toBe(143);
    // stopped as Ctrl-C stops a run: the pending call answered, the run's end printed
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ name: "Bash", isError: true });
    expect(events.at(-1)).toMatchObject({ type: "run_end", outcome: "aborted" });
    const pid = Number(readFileSync(path.join(dir, "pid"), "utf8"));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 40 && alive(); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive()).toBe(false);
  });

  it("says which variable to set when there is no key", async () => {
    fake = await startFakeAnthropic([]);
    const r = await runBinAsync(["run", "x"], { cwd: dir, env: {} });
    expect([r.code, r.stderr]).toEqual([
      1,
      "agentmd: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or run the recorded demo offline with 'agentmd run --replay demo/session.jsonl'\n",
    ]);
  });

  it("prints the SDK's deprecation warning for a model once per process, not once a turn", async () => {
    fake = await startFakeAnthropic([
      { kind: "message", content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
      { kind: "message", content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
      { kind: "message", content: [{ type: "text", text: "done" }] },
    ]);
    const r = await runBinAsync(["run", "--model", "claude-sonnet-4-5", "go"], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(3);
    expect(r.stderr.match(/The model 'claude-sonnet-4-5' is deprecated/g)).toHaveLength(1);
  });
});
