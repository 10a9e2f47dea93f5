import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliRun, runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { jsonLines } from "../support/runs.js";
import { text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";
import { until } from "../support/until.js";

/**
 * MCP servers that misbehave at start-up, through the built CLI with real signals, as a user meets
 * them.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const env = () => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
  HOME: path.join(dir, "home"),
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a signal while an MCP server is starting", () => {
  const mark = () => path.join(dir, "slow.starts");
  beforeEach(async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ slow: stdioServer("slow-start", mark()) }),
      "agent.md": "---\nallowed-tools: mcp__slow__*\n---\nMain.\n",
    });
    trustProject(dir);
    fake = await startFakeAnthropic([text("never asked")]);
  });

  /**
   * The run, signalled once the server process has started. The server never gets ready, and the
   * run's wait for it (30 s) outlasts the test's own timeout (20 s): a run that waited for it
   * instead of stopping fails the test, however busy the machine.
   */
  async function signalWhileStarting(
    signal: NodeJS.Signals,
    output: "stream-json" | "text",
  ): Promise<{ r: CliRun; pid: number }> {
    const r = await runBinAsync(["run", "--output", output, "go"], {
      cwd: dir,
      env: env(),
      onStart: (child) =>
        void until(() => startsOf(mark()) === 1, { what: "the server to start" }).then(() => {
          child.kill(signal);
        }),
    });
    return { r, pid: Number(readFileSync(mark(), "utf8").trim()) };
  }

  /** The run ended as an abort that says why, before any request. */
  function expectStopped(r: CliRun): void {
    const events = jsonLines(r.stdout);
    expect(events.filter((e) => e.type === "abort")).toMatchObject([
      { message: "the run was interrupted while MCP server 'slow' was starting" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_end", outcome: "aborted", turns: 0 });
  }

  it("Ctrl-C: the run stops before its first request, says so, exits 130; the server is stopped", async () => {
    const { r, pid } = await signalWhileStarting("SIGINT", "stream-json");
    expect(r.code).toBe(130);
    expect(fake?.requests).toHaveLength(0);
    expectStopped(r);
    await until(() => !alive(pid), { what: "the starting server to be stopped" });
  });

  it("SIGTERM: exit 143 promptly, saying so, and the starting server process is stopped too", async () => {
    const { r, pid } = await signalWhileStarting("SIGTERM", "text");
    expect(r.code).toBe(143);
    expect(fake?.requests).toHaveLength(0);
    expect(r.stdout).toContain("aborted: the run was interrupted while MCP server 'slow' was starting");
    await until(() => !alive(pid), { what: "the starting server to be stopped" });
  });
});

describe("a server that cannot start, when the allow-list names only its tools", () => {
  beforeEach(async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ broken: stdioServer("fails-to-start") }),
      "agent.md": "---\nallowed-tools: mcp__broken__*\n---\nMain.\n",
    });
    trustProject(dir);
    fake = await startFakeAnthropic([]);
  });

  it("run: exit 1 (not the refusal's 2), naming the server and its error", async () => {
    const r = await runBinAsync(["run", "go"], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("MCP server 'broken' could not be started");
    expect(r.stdout + r.stderr).toContain("fails-to-start: GITHUB_TOKEN is not valid");
    expect(r.stdout + r.stderr).not.toContain("no entry of the allow-list names a tool that exists");
  });

  it("batch: the item failed with the server's error (retryable), not refused", async () => {
    writeFiles(dir, { "runs.jsonl": `${JSON.stringify({ id: "a", prompt: "go" })}\n` });
    trustProject(dir);
    const r = await runBinAsync(["batch", "runs.jsonl"], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    const [line] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(line).toMatchObject({ id: "a", outcome: "error" });
    expect(line.message).toContain("MCP server 'broken' could not be started");
  });
});
