import { readdirSync, readFileSync } from "node:fs";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { defineTool, fail, ok } from "../../src/tools/index.js";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let marks = 0;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "src/a.ts": "a\n", "src/secret.txt": "s\n", "src/b.ts": "b\n" });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

/** A command line whose process can be found in /proc by a word no other process has. */
function marker(): { token: string; command: string } {
  const token = `600.${process.pid}${String(++marks).padStart(3, "0")}`;
  return { token, command: `sleep ${token} & wait` };
}

function processWith(token: string): boolean {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(token)) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** Polls /proc (another process's state cannot be awaited), at most 5 s. */
async function seen(check: () => boolean): Promise<boolean> {
  await until(check, { what: "the marker process's state", timeoutMs: 5000, everyMs: 25 });
  return true;
}

/** A test tool: waits until a process with the token is (or is no longer) running. */
const waitProcess = defineTool({
  name: "WaitProcess",
  description: "Waits for a marker process.",
  inputSchema: {
    type: "object",
    properties: { token: { type: "string" }, running: { type: "boolean" } },
    required: ["token", "running"],
  } as const,
  execute: async ({ token, running }) =>
    (await seen(() => processWith(token) === running))
      ? ok(running ? "running" : "gone")
      : fail(running ? "never started" : "still running"),
});
const hang = defineTool({
  name: "Hang",
  description: "Waits until aborted.",
  inputSchema: { type: "object" } as const,
  execute: (_input, ctx) =>
    new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(fail("stopped")))),
});

async function start(agentMd: string, script: ScriptStep[], files: Record<string, string> = {}) {
  writeFiles(dir, { "agent.md": agentMd, ...files });
  fake = await startFakeAnthropic(script);
  return createRunner({
    projectDir: dir,
    env: { PATH: process.env.PATH },
    model: { apiKey: "test-key", baseURL: fake.url, maxRetries: 0 },
    tools: { extra: [waitProcess, hang] },
    transcript: { enabled: false },
  });
}

const agent = (tools: string, deny = "") =>
  `---\nname: t\nallowed-tools: ${tools}\n${deny ? `disallowed-tools: ${deny}\n` : ""}---\nYou test.\n`;

describe("TodoWrite", () => {
  it("answers as Claude Code does and shows the list as a todos event", async () => {
    const todos = [
      { content: "Read the code", status: "completed", activeForm: "Reading the code" },
      { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
      { content: "Run the tests", status: "pending", id: "3", priority: "high" },
    ];
    const runner = await start(agent("TodoWrite"), [call("TodoWrite", { todos }), text("done")]);
    const { events } = await drain(runner.run("go"));
    const shown = ofType(events, "todos");
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ depth: 0, todos });
    expect(resultText(resultsSent(fake as FakeAnthropic, 1)[0])).toBe(
      "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
    );
    const bad = await start(agent("TodoWrite"), [
      call("TodoWrite", { todos: [{ content: "x", status: "doing" }] }),
      text("done"),
    ]);
    const r = await drain(bad.run("go"));
    expect(ofType(r.events, "todos")).toHaveLength(0);
    expect(resultsSent(fake as FakeAnthropic, 1)[0]?.is_error).toBe(true);
  });
});

describe("LS in a run", () => {
  it("lists what the run may read and leaves out what a Read deny covers", async () => {
    const runner = await start(agent("LS, Read(src/**)", "Read(src/secret.txt)"), [
      call("LS", { path: `${dir}/src` }),
      call("LS", { path: dir }),
      text("done"),
    ]);
    await drain(runner.run("go"));
    const f = fake as FakeAnthropic;
    expect(resultText(resultsSent(f, 1)[0])).toBe(`${dir}/src/\n  a.ts\n  b.ts`);
    expect(resultsSent(f, 2)[0]?.is_error).toBe(true);
    expect(resultText(resultsSent(f, 2)[0])).toBe(
      `LS(${dir}) is not allowed: this run allows LS only for: src/**. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.`,
    );
  });
});

describe("background commands end with their run", () => {
  it("when the run is done", async () => {
    const m = marker();
    const runner = await start(agent("Bash, WaitProcess"), [
      call("Bash", { command: m.command, run_in_background: true }),
      call("WaitProcess", { token: m.token, running: true }),
      text("done"),
    ]);
    const { result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("done");
    expect(resultText(resultsSent(fake as FakeAnthropic, 1)[0])).toMatch(
      /^Started in the background as bash_1/,
    );
    expect(resultText(resultsSent(fake as FakeAnthropic, 2)[0])).toBe("running");
    expect(await seen(() => !processWith(m.token))).toBe(true);
  });

  it("when the run is aborted", async () => {
    const m = marker();
    const runner = await start(agent("Bash, WaitProcess, Hang"), [
      call("Bash", { command: m.command, run_in_background: true }),
      call("WaitProcess", { token: m.token, running: true }),
      call("Hang", {}),
    ]);
    const ac = new AbortController();
    const handle = runner.run("go", { signal: ac.signal });
    for await (const e of handle) if (e.type === "tool_start" && e.name === "Hang") ac.abort();
    expect((await handle.result()).outcome).toBe("aborted");
    expect(resultText(resultsSent(fake as FakeAnthropic, 2)[0])).toBe("running");
    expect(await seen(() => !processWith(m.token))).toBe(true);
  });

  it("when a subagent's run ends, while its parent goes on; the parent cannot read its shells", async () => {
    const m = marker();
    const runner = await start(
      agent("Task, Bash, WaitProcess, BashOutput"),
      [
        call("Task", { description: "bg", prompt: "start it", subagent_type: "bg" }),
        call("Bash", { command: m.command, run_in_background: true }),
        call("WaitProcess", { token: m.token, running: true }),
        text("started"),
        call("WaitProcess", { token: m.token, running: false }),
        call("BashOutput", { bash_id: "bash_1" }),
        text("done"),
      ],
      { "agents/bg.md": "---\nname: bg\ndescription: Starts things.\ntools: Bash, WaitProcess\n---\nGo.\n" },
    );
    const { result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("done");
    const f = fake as FakeAnthropic;
    expect(resultText(resultsSent(f, 3)[0])).toBe("running");
    expect(resultText(resultsSent(f, 5)[0])).toBe("gone");
    expect(resultText(resultsSent(f, 6)[0])).toBe("No background command 'bash_1' in this run.");
  });

  it("a denied command is denied with run_in_background too, and never starts", async () => {
    const m = marker();
    const runner = await start(agent("Bash(git:*)"), [
      call("Bash", { command: m.command, run_in_background: true }),
      text("done"),
    ]);
    await drain(runner.run("go"));
    const sent = resultsSent(fake as FakeAnthropic, 1)[0];
    expect(sent?.is_error).toBe(true);
    expect(resultText(sent)).toBe(
      `Bash(${m.command}) is not allowed: its command 'sleep ${m.token}' matches none of the patterns: this run allows Bash only for: git:*. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.`,
    );
    expect(processWith(m.token)).toBe(false);
  });
});

const RESULT = {
  type: "web_search_result",
  title: "agentmd docs",
  url: "https://docs.example.com/agentmd",
  encrypted_content: "EqQBCioIAhgB",
  page_age: null,
};

/** A response in which the API searched: text, the search, its result, more text, and a local call. */
const searched = (extra: ScriptStep[] = []): ScriptStep[] => [
  {
    kind: "message",
    content: [
      { type: "text", text: "Let me search." },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "agentmd docs" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [RESULT] },
      { type: "text", text: "Found it; reading a file too." },
      { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "src/a.ts" } },
    ],
    usage: { input_tokens: 1000, output_tokens: 100, server_tool_use: { web_search_requests: 1 } },
  },
  text("done"),
  ...extra,
];

describe("WebSearch through the Messages API's server tool", () => {
  it("is offered as web_search with the list's domains, and its blocks go back in history", async () => {
    const runner = await start(agent("Read, WebSearch(domain:example.com)"), searched());
    const { events, result } = await drain(runner.run("find the docs"));
    const f = fake as FakeAnthropic;
    expect(f.requests[0]?.body.tools?.find((t) => (t as { name: string }).name === "web_search")).toEqual({
      type: "web_search_20250305",
      name: "web_search",
      allowed_domains: ["example.com"],
      cache_control: { type: "ephemeral" },
    });
    const assistant = f.requests[1]?.body.messages[1] as MessageParam;
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toEqual([
      { type: "text", text: "Let me search." },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "agentmd docs" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [RESULT] },
      { type: "text", text: "Found it; reading a file too." },
      { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "src/a.ts" } },
    ]);
    expect(ofType(events, "server_tool")).toEqual([
      {
        runId: result.runId,
        depth: 0,
        type: "server_tool",
        id: "srvtoolu_1",
        name: "WebSearch",
        input: { query: "agentmd docs" },
        isError: false,
        content: "1 result: agentmd docs (docs.example.com)",
      },
    ]);
    // Only local calls are executed: one tool_start, for Read.
    expect(ofType(events, "tool_start").map((e) => e.name)).toEqual(["Read"]);
    expect(result.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    // claude-sonnet: $3 / $15 per million tokens, plus $10 per 1,000 searches.
    const tokens = (1000 * 3 + 100 * 15) / 1e6 + (10 * 3 + 5 * 15) / 1e6;
    expect(result.costUsd).toBeCloseTo(tokens + 0.01, 10);
  });

  it("is not offered when the list does not allow it, or allows nothing the API can be told", async () => {
    const warned: string[][] = [];
    for (const tools of ["Read", "Read, WebSearch(domain:*.example.com)"]) {
      const runner = await start(agent(tools), [text("ok")]);
      const { events } = await drain(runner.run("hi"));
      expect(toolsOf(fake as FakeAnthropic, 0)).toEqual(["Read"]);
      warned.push(ofType(events, "warning").map((w) => w.message));
      await fake?.close();
    }
    expect(warned).toEqual([
      [],
      [
        "WebSearch is allowed but not offered: the model API cannot be told exactly what its rules allow (a subdomains-only pattern, a deny inside an allowed site), and a list is never widened",
      ],
    ]);
    const runner = await start(agent("Read, WebSearch", "WebSearch(domain:evil.io)"), [text("ok")]);
    await drain(runner.run("hi"));
    expect((fake as FakeAnthropic).requests[0]?.body.tools?.at(-1)).toEqual({
      type: "web_search_20250305",
      name: "web_search",
      blocked_domains: ["evil.io"],
      cache_control: { type: "ephemeral" },
    });
  });

  it("says a failed search, and never runs WebSearch as a local tool", async () => {
    const runner = await start(agent("WebSearch"), [
      {
        kind: "message",
        content: [
          { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: { query: "x" } },
          {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_2",
            content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
          },
          { type: "tool_use", id: "toolu_w", name: "WebSearch", input: { query: "x" } },
        ],
      },
      text("done"),
    ]);
    const { events } = await drain(runner.run("hi"));
    expect(ofType(events, "server_tool")[0]).toMatchObject({
      isError: true,
      content: "search failed: max_uses_exceeded",
    });
    const local = resultsSent(fake as FakeAnthropic, 1)[0];
    expect(local?.is_error).toBe(true);
    expect(resultText(local)).toContain("runs on the model API's side");
  });
});
