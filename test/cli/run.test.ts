import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { runBinAsync } from "../support/cli.js";
import { type Fixtures, it } from "../support/fixture.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Bash(git:*)\nmaxIterations: 5\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  });
});

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

/** Runs the CLI on one Bash call and sends it `signal` once the command has written the file `ready`. */
async function signalDuringBash(
  { dir, fake, cli }: Pick<Fixtures, "dir" | "fake" | "cli">,
  command: string,
  signal: NodeJS.Signals,
  ready: string,
) {
  fake.push({ kind: "message", content: [{ type: "tool_use", name: "Bash", input: { command } }] });
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nx\n" });
  let child: ChildProcess | undefined;
  const run = cli(["run", "--output", "stream-json", "wait"], { onStart: (c) => (child = c) });
  try {
    await until(() => existsSync(path.join(dir, ready)), { what: `the command to write ${ready}` });
  } catch (e) {
    child?.kill("SIGKILL");
    await run;
    throw e;
  }
  child?.kill(signal);
  return run;
}

describe("agentmd run (built CLI, fake server)", () => {
  it("streams text, shows each tool call with its decision, and ends with a summary; exit 0", async ({
    fake,
    cli,
  }) => {
    fake.push(...steps());
    const r = await cli(["run", "read a.txt then delete x"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^⏺ Read a\.txt → ok \(\d+ ms\)$/m);
    expect(r.stdout).toMatch(
      /^⏺ Bash rm -rf \.\/x → denied: Bash\(rm -rf \.\/x\) is not allowed: this run allows Bash only for: git:\*\. agent\.md narrowed this run: its allowed-tools do not allow this call\. The tool was not executed\. \(\d+ ms\)$/m,
    );
    expect(r.stdout).toContain("Read it; could not delete.");
    expect(r.stdout).toMatch(/— done · 3 turns · /);
    expect(fake.requests[0]?.body.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "read a.txt then delete x", cache_control: { type: "ephemeral" } }],
    });
  });

  it("reads the prompt from standard input, and prints JSON with --output json", async ({ fake, cli }) => {
    fake.push(...steps());
    const r = await cli(["run", "--output", "json"], { input: "from stdin" });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ outcome: "done", text: "Read it; could not delete.", turns: 3 });
    expect(fake.requests[0]?.body.messages[0]?.content).toEqual([
      { type: "text", text: "from stdin", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("prints every event as a JSON line with --output stream-json, and resumes a session", async ({
    fake,
    cli,
  }) => {
    fake.push(...steps(), { kind: "message", content: [{ type: "text", text: "again" }] });
    const r = await cli(["run", "--output", "stream-json", "go"]);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("run_start");
    expect(events.at(-1).type).toBe("run_end");
    const again = await cli(["run", "--resume", events[0].sessionId, "--output", "json", "and now?"]);
    expect(JSON.parse(again.stdout).text).toBe("again");
    expect(fake.requests[3]?.body.messages).toHaveLength(7);
  });

  it("exits 1 with the error on an API failure and with a limit, 2 when permissions refuse the run", async ({
    dir,
    fake,
    main,
  }) => {
    fake.push({ kind: "http-error", status: 400, message: "bad request here" });
    const bad = await main(["run", "x"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      `error: the model API at ${fake.url} answered HTTP 400 (invalid_request_error): bad request here`,
    );
    writeFiles(dir, { "agent.md": "---\nallowed-tools: NoSuchTool\n---\nx\n" });
    const refused = await main(["run", "x"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(
      "no entry of the allow-list names a tool that exists in this run (NoSuchTool)",
    );
  });

  it("aborts on Ctrl-C with exit 130, answering the pending call as interrupted", async ({
    dir,
    fake,
    cli,
  }) => {
    const r = await signalDuringBash(
      { dir, fake, cli },
      "git --version && touch started && sleep 30",
      "SIGINT",
      "started",
    );
    expect(r.code).toBe(130);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ name: "Bash", isError: true });
    expect(events.some((e) => e.type === "abort")).toBe(true);
  });

  it("leaves no command running when it is terminated (SIGTERM)", async ({ dir, fake, cli }) => {
    const r = await signalDuringBash(
      { dir, fake, cli },
      "sleep 30 & echo $! > pid.tmp; mv pid.tmp pid; wait",
      "SIGTERM",
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
    await until(() => !alive(), { what: `the background command (pid ${pid}) to end` });
  });

  it("says which variable to set when there is no key", async ({ dir }) => {
    const r = await runBinAsync(["run", "x"], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([
      1,
      "agentmd: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or answer offline from a recording with --replay FILE (one made with --record FILE; agentmd's own demo is in a clone of its repository: npx agentmd run --replay demo/session.jsonl)\n",
    ]);
  });

  it("prints the SDK's deprecation warning for a model once per process, not once a turn", async ({
    fake,
    cli,
  }) => {
    fake.push(
      { kind: "message", content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
      { kind: "message", content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] },
      { kind: "message", content: [{ type: "text", text: "done" }] },
    );
    const r = await cli(["run", "--model", "claude-sonnet-4-5", "go"]);
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(3);
    expect(r.stderr.match(/The model 'claude-sonnet-4-5' is deprecated/g)).toHaveLength(1);
  });
});
