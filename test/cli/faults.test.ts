import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolFs } from "../../src/tools/builtin/fs.js";
import { createReadTool } from "../../src/tools/builtin/index.js";
import { type CliRun, runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { jsonLines, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { toolContext, writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";
import { until } from "../support/until.js";

/**
 * Faults as a user meets them: no silent death, no hang, a message that says what happened, and the
 * run going on where it can. Each class of fault crosses the built CLI at least once (a Bash
 * timeout, a connection that fails, a session in use, the signals); its other rows run the CLI's
 * main() in this process.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash, Read\n---\nMain.\n" });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
  HOME: path.join(dir, "home"),
  ...extra,
});
const cli = (args: string[], extra: Record<string, string> = {}) =>
  runBinAsync(args, { cwd: dir, env: env(extra) });
/** The same command through the CLI's main() in this process: for a fault whose class another test crosses the built CLI with. */
const inProcess = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env(extra) } });
const told = (i: number) => resultText(resultsSent(fake as FakeAnthropic, i)[0]);

describe("tool calls that go wrong stay one call's problem", () => {
  it("a Bash timeout answers the call and the run goes on (it used to end agentmd in silence)", async () => {
    fake = await startFakeAnthropic([
      call("Bash", { command: "sleep 60", timeout: 500 }),
      text("after the timeout"),
    ]);
    const r = await cli(["run", "go"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(told(1)).toBe("[killed after 500 ms: timed out]");
    expect(r.stdout).toContain("after the timeout");
  });

  it("an input that is not valid JSON, or never closed, is an error result and never executed", async () => {
    fake = await startFakeAnthropic([
      {
        kind: "message",
        content: [{ type: "tool_use", name: "Bash", input: {}, partialJson: '{"command": echo hi}' }],
        stopReason: "tool_use",
      },
      {
        kind: "message",
        content: [{ type: "tool_use", name: "Bash", input: {}, partialJson: '{"command":"touch X"' }],
        stopReason: "tool_use",
      },
      text("done"),
    ]);
    const r = await inProcess(["run", "go"]);
    expect(r.code).toBe(0);
    expect(told(1)).toBe(
      `The input of this Bash call is not complete JSON (got '{"command": echo hi}'), so it was not executed. Send the call again with its input as one JSON object.`,
    );
    expect(told(2)).toContain("is not complete JSON");
    expect(existsSync(path.join(dir, "X"))).toBe(false);
  });

  it("binary output is summarised, and what a command leaves running is ended with it", async () => {
    fake = await startFakeAnthropic([
      call("Bash", { command: "printf 'a\\0b\\1'" }),
      call("Bash", { command: "sleep 30 & echo $! > left.pid" }),
      text("done"),
    ]);
    await inProcess(["run", "go"]);
    expect(told(1)).toBe("[binary output, 4 bytes]\n[exit code 0]");
    const pid = Number(readFileSync(path.join(dir, "left.pid"), "utf8"));
    expect(await gone(pid)).toBe(true);
  });
});

describe("the model API: no hang, every retry said, and a message that names the server", () => {
  it("a stream that goes silent after its headers is given up after the idle timeout, each retry printed", async () => {
    fake = await startFakeAnthropic([{ kind: "silence" }, { kind: "silence" }, { kind: "silence" }]);
    const r = await inProcess(["run", "go"], { ANTHROPIC_TIMEOUT_MS: "300" });
    expect(r.code).toBe(1);
    expect(r.stdout.match(/retrying \(no data for 0\.3 s from /g)).toHaveLength(2);
    expect(r.stdout).toContain(`error: no data for 0.3 s from ${fake.url} (2 retries made)`);
  });

  it("a server that never answers at all is given up the same way", async () => {
    fake = await startFakeAnthropic([{ kind: "no-answer" }, { kind: "no-answer" }, { kind: "no-answer" }]);
    const r = await inProcess(["run", "go"], { ANTHROPIC_TIMEOUT_MS: "300" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`no data for 0.3 s from ${fake.url}`);
  });

  it("pings count as life: a slow model that pings is not given up", async () => {
    fake = await startFakeAnthropic([
      // 2.5 s of nothing but pings, a ping every 0.1 s, under an idle limit of 1.5 s: only the
      // pings keep the request alive (the limit leaves room for a loaded machine's pauses).
      { kind: "pings", every: 100, count: 25, after: [{ type: "text", text: "slow but alive" }] },
    ]);
    const r = await inProcess(["run", "go"], { ANTHROPIC_TIMEOUT_MS: "1500" });
    expect([r.code, r.stdout.includes("slow but alive"), r.stdout.includes("retrying")]).toEqual([
      0,
      true,
      false,
    ]);
  });

  it("an api_error inside the stream before any output is retried like an HTTP 500", async () => {
    fake = await startFakeAnthropic([
      { kind: "sse-error", before: [], errorType: "api_error", message: "boom" },
      text("second try"),
    ]);
    const r = await inProcess(["run", "go"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("retrying (api_error in the response stream), attempt 1");
    expect(r.stdout).toContain("second try");
  });

  it("a 200 answer that is not an event stream says so, cut to a readable length", async () => {
    const page = `<html><body>${"Service temporarily unavailable. ".repeat(200)}</body></html>`;
    fake = await startFakeAnthropic([{ kind: "not-a-stream", contentType: "text/html", body: page }]);
    const r = await inProcess(["run", "go"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`error: the model API at ${fake.url} answered 200 with text/html`);
    expect(r.stdout).toContain("not an event stream: <html><body>Service temporarily unavailable.");
    expect(r.stdout).toContain(`characters in all)`);
  });

  it("a connection that fails names the base URL", async () => {
    fake = await startFakeAnthropic([]);
    const url = fake.url;
    await fake.close();
    const r = await runBinAsync(["run", "go"], { cwd: dir, env: { ...env(), ANTHROPIC_BASE_URL: url } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`the connection to the model API at ${url} failed`);
  });
});

describe("hostile trees: a diagnostic each, quickly, and a signal ends check at any point", () => {
  it("a FIFO, links to / and to the project, deep nesting, many keys, a huge list", async () => {
    mkdirSync(path.join(dir, "agents"));
    await new Promise((resolve) =>
      spawn("mkfifo", [path.join(dir, "agents", "pipe.md")]).on("close", resolve),
    );
    symlinkSync("/", path.join(dir, "agents", "r"));
    symlinkSync("..", path.join(dir, "agents", "loop"));
    symlinkSync(path.join(dir, "no-such-target"), path.join(dir, "agents", "dangling.md"));
    const head = "---\nname: x\ndescription: d\n";
    writeFileSync(
      path.join(dir, "agents", "deep.md"),
      `${head}x: ${"[".repeat(30_000)}${"]".repeat(30_000)}\n---\n`,
    );
    writeFileSync(
      path.join(dir, "agents", "keys.md"),
      `${head}${Array.from({ length: 5000 }, (_, i) => `k${i}: v`).join("\n")}\n---\n`,
    );
    writeFileSync(
      path.join(dir, "agents", "list.md"),
      `${head}tools: ${Array.from({ length: 5000 }, (_, i) => `T${i}`).join(", ")}\n---\n`,
    );
    const r = await runBinAsync(["check"], { cwd: dir, env: { HOME: "/nowhere" } });
    expect(r.code).toBe(1);
    const codes = r.stdout
      .split("\n")
      .map((l) => /^agents\/(\S+?):\d+:\d+: \w+: .*\[(\S+)\]$/.exec(l)?.slice(1, 3).join(" "))
      .filter(Boolean);
    expect(codes.sort()).toEqual([
      "dangling.md unreadable",
      "deep.md frontmatter-too-large",
      "keys.md frontmatter-too-large",
      "list.md tool-list-too-long",
      "loop symlink-loop",
      "pipe.md not-a-file",
      "r symlink-loop",
    ]);
  });

  it("SIGTERM ends check at once, even in the middle of its work", async () => {
    for (let i = 0; i < 400; i++)
      writeFiles(dir, { [`agents/a${i}.md`]: `---\nname: a${i}\ndescription: d\n---\nx\n` });
    const r = await runBinAsync(["check"], {
      cwd: dir,
      env: { HOME: "/nowhere" },
      onStart: (child) => child.kill("SIGTERM"),
    });
    expect(r.code).toBe(128);
  });
});

describe("a run whose work can never finish is not a silent exit", () => {
  it("a custom tool whose promise never settles is answered, naming it and its time limit; the run goes on", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Stuck\n---\nMain.\n",
      "tools/stuck.mjs": `export default { name: "Stuck", description: "Never answers.", inputSchema: { type: "object" }, concurrency: "sequential", interrupt: "cooperative", ownsSchema: true, timeoutMs: 500, execute: () => new Promise(() => {}) };\n`,
    });
    trustProject(dir);
    fake = await startFakeAnthropic([call("Stuck", {}), text("went on")]);
    const r = await inProcess(["run", "go"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const told = resultsSent(fake, 1)[0];
    expect(told?.is_error).toBe(true);
    expect(resultText(told)).toBe(
      "Stuck did not answer within 0.5 s (its time limit, `timeoutMs` in its definition), so the call was abandoned; what it did is unknown.",
    );
    expect(r.stdout).toContain("went on");
  });
});

describe("Ctrl-C is never held by a hook or a tool", () => {
  /**
   * The run, through the built CLI, with a SIGINT as soon as `ready.fifo` says the slow part has
   * started (its process group, or "tool", written there). The slow part outlasts the test's own
   * timeout: a run that waited for it instead of exiting fails the test, however busy the machine.
   */
  async function interruptWhenReady(): Promise<{ r: CliRun; ready: string }> {
    await new Promise((resolve) => spawn("mkfifo", [path.join(dir, "ready.fifo")]).on("close", resolve));
    fake = await startFakeAnthropic([call("Slow", {}), text("never")]);
    let ready = "";
    const r = await runBinAsync(["run", "--output", "stream-json", "go"], {
      cwd: dir,
      env: env(),
      onStart: (child) =>
        void readFile(path.join(dir, "ready.fifo"), "utf8").then((said) => {
          ready = said.trim();
          child.kill("SIGINT");
        }),
    });
    return { r, ready };
  }

  /** The run ended as an abort: in its output and in the transcript it wrote. */
  function expectAbortRecorded(r: CliRun): void {
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ type: "run_end", outcome: "aborted" });
    const sessions = path.join(dir, ".agentmd/sessions");
    const file = readdirSync(sessions).find((f) => f.endsWith(".jsonl")) as string;
    const written = readFileSync(path.join(sessions, file), "utf8").trim().split("\n");
    expect(JSON.parse(written.at(-1) as string)).toMatchObject({ type: "run_end", outcome: "aborted" });
  }

  it("during a slow PreToolUse hook: exit 130 at once, the hook's whole process group ended", async () => {
    writeFiles(dir, {
      "agent.md": [
        "---",
        "allowed-tools: Slow",
        "hooks:",
        "  PreToolUse:",
        "    - command: echo $$ > ready.fifo; sleep 3000; touch hook-finished",
        "---",
        "Main.",
      ].join("\n"),
      "tools/slow.mjs": slowTool("async () => ({ content: 'ran', isError: false })"),
    });
    trustProject(dir);
    const { r, ready } = await interruptWhenReady();
    expect(r.code).toBe(130);
    const ended = jsonLines(r.stdout).find((e) => e.type === "tool_end");
    expect(ended).toMatchObject({ name: "Slow", decision: "interrupted" });
    expectAbortRecorded(r);
    expect(await groupGone(Number(ready))).toBe(true);
    expect(existsSync(path.join(dir, "hook-finished"))).toBe(false);
  });

  it("during a custom tool that ignores its signal: the call is abandoned, exit 130 at once", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Slow\n---\nMain.\n",
      "tools/slow.mjs": slowTool(
        `async () => { await writeFile(${JSON.stringify(path.join(dir, "ready.fifo"))}, "tool"); await new Promise((r) => setTimeout(r, 3_000_000)); return { content: "late", isError: false }; }`,
      ),
    });
    trustProject(dir);
    const { r, ready } = await interruptWhenReady();
    expect([r.code, ready]).toEqual([130, "tool"]);
    const ended = jsonLines(r.stdout).find((e) => e.type === "tool_end");
    expect(ended).toMatchObject({ name: "Slow", decision: "interrupted", isError: true });
    expect(ended && "content" in ended && ended.content).toContain("it was abandoned");
    expectAbortRecorded(r);
  });
});

/** A custom tool module whose `execute` is the source given; it claims to stop on its signal. */
function slowTool(execute: string): string {
  return `import { writeFile } from "node:fs/promises";\nexport default { name: "Slow", description: "Takes its time.", inputSchema: { type: "object" }, concurrency: "sequential", interrupt: "cooperative", ownsSchema: true, execute: ${execute} };\n`;
}

describe("resume tells the truth", () => {
  const session = (lines: string[]) => {
    writeFiles(dir, { ".agentmd/sessions/s1.jsonl": `${lines.join("\n")}\n` });
  };
  const started = [
    { type: "run_start", runId: "r", depth: 0, sessionId: "s1", agent: "main", model: "m", tools: ["Bash"] },
    { type: "user_message", runId: "r", depth: 0, content: "delete the branch" },
    {
      type: "message_end",
      runId: "r",
      depth: 0,
      turn: 1,
      stopReason: "tool_use",
      content: [
        { type: "tool_use", id: "t1", name: "Bash", input: { command: "git branch -D x" } },
        { type: "tool_use", id: "t2", name: "Bash", input: { command: "ls" } },
      ],
    },
    { type: "tool_start", runId: "r", depth: 0, id: "t1", name: "Bash", input: {} },
    { type: "tool_run", runId: "r", depth: 0, id: "t1", name: "Bash" },
    // Judged, never started: its tool_run was not written.
    { type: "tool_start", runId: "r", depth: 0, id: "t2", name: "Bash", input: {} },
  ].map((e) => JSON.stringify(e));

  it("a call whose tool started without an end is 'outcome unknown', one never started 'not executed'; a damaged line is skipped and said", async () => {
    session([...started, '{"type":"tool_end","runId":"r","dep']);
    fake = await startFakeAnthropic([text("checked")]);
    const r = await inProcess(["run", "--output", "stream-json", "--resume", "s1", "go on"]);
    expect(r.code).toBe(0);
    const results = fake.requests[0]?.body.messages[2]?.content;
    const texts = (Array.isArray(results) ? results : []).map((b) =>
      "content" in b ? String(b.content) : "",
    );
    expect(texts[0]).toContain("was started, but agentmd stopped before it finished: its outcome is unknown");
    expect(texts[1]).toContain("before this call was executed");
    expect(ofType(jsonLines(r.stdout), "warning").map((w) => w.message)).toContain(
      "1 line of the session s1 could not be read (cut off or damaged) and was skipped",
    );
  });

  it("a second run resuming a session that is in use is refused, with the holder named", async () => {
    session(started);
    writeFiles(dir, { ".agentmd/sessions/s1.jsonl.lock": String(process.pid) });
    fake = await startFakeAnthropic([text("never")]);
    const r = await cli(["run", "--resume", "s1", "go on"]);
    expect(r.code).toBe(75);
    expect(r.stderr).toContain(`the session s1 is in use by another agentmd (process ${process.pid})`);
    expect(fake.requests).toHaveLength(0);
  });

  it("sessions show prints a damaged session without a stack trace", async () => {
    session([...started, "{not json", "[1,2]"]);
    const r = await runCli(["sessions", "show", "s1"], { cwd: dir, env: { HOME: "/nowhere" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("agentmd sessions: 2 line(s) of this session could not be read and were skipped\n");
    expect(r.stdout).toContain("delete the branch");
  });

  it("the resume hint is printed only when the transcript was written", async () => {
    writeFileSync(path.join(dir, ".agentmd"), "a file where the sessions folder would be");
    fake = await startFakeAnthropic([text("hello")]);
    const r = await inProcess(["run", "go"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("warning: cannot write the transcript");
    expect(r.stdout).not.toContain("resume with");
  });
});

describe("Read streams", () => {
  it("reads a window of an endless file in bounded memory, and stops on abort while reading", async () => {
    const ac = new AbortController();
    let chunks = 0;
    const endless: ToolFs = {
      stat: async () => ({ isFile: () => true, isDirectory: () => false, size: 1, mtimeMs: 0 }),
      readFile: async () => Buffer.from(""),
      async *readStream() {
        for (;;) {
          if (++chunks === 50) ac.abort();
          yield Buffer.from("line\n".repeat(10_000));
        }
      },
      writeFile: async () => {},
      mkdir: async () => undefined,
      readdir: async () => [],
    };
    const r = await createReadTool({ fs: endless }).execute(
      { file_path: "/endless" },
      toolContext(REPO_ROOT, ac.signal),
    );
    expect(r).toEqual({ content: "Interrupted.", isError: true });
    expect(chunks).toBe(50);
  });
});

/** Whether every process of a group has ended, within a bound (the kill is seen a moment later). */
async function groupGone(pgid: number): Promise<boolean> {
  return gone(-pgid);
}

async function gone(pid: number): Promise<boolean> {
  const ended = () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  return until(ended, { what: `process ${pid} to end`, timeoutMs: 5000, everyMs: 25 });
}
