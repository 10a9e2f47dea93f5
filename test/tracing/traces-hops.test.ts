import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { DEFAULT_MODEL } from "../../src/shared/defaults.js";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { startHttpMcpServer } from "../support/mcp-http.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  spanTree,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import { drain } from "../support/runs.js";
import { runSandboxTests } from "../support/sandbox.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * The spans beside the model's and the calls': each hook run (under its call, or its run), an MCP
 * server's start and the MCP side of a call, a command's start in the OS sandbox; each process
 * (hook, MCP server, MCP call) given the context of its own span. Traced to a real OTLP/HTTP
 * receiver; the MCP server is a real one that says what `_meta` it was sent.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let receiver: OtlpReceiver;

const agentMd = (extra = "") =>
  [
    "---",
    "name: main",
    "allowed-tools: Bash(echo:*), mcp__probe__trace_context",
    extra,
    "hooks:",
    "  SessionStart:",
    '    - command: echo "$TRACEPARENT" > session-tp.txt',
    "  PreToolUse:",
    "    - matcher: Bash",
    '      command: \'if grep -q forbidden; then echo "no forbidden words" >&2; exit 2; fi; echo "$TRACEPARENT" >> pre-tp.txt\'',
    "  Stop:",
    "    - command: 'true'",
    "---",
    "You are the main agent.",
  ]
    .filter((l) => l !== "")
    .join("\n");

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await receiver.close();
  cleanup();
});

function project(extra?: string): void {
  writeFiles(dir, {
    "agent.md": agentMd(extra),
    ".mcp.json": mcpJson({ probe: stdioServer("traced") }),
  });
  trustProject(dir, dir);
}

const script = () => [
  call("mcp__probe__trace_context", {}, "mcp1"),
  call("Bash", { command: "echo hello" }, "bash1"),
  call("Bash", { command: "echo forbidden" }, "bash2"),
  text("done"),
];

const traced = (url: string) => ({
  ANTHROPIC_API_KEY: "k",
  ...(fake && { ANTHROPIC_BASE_URL: fake.url }),
  HOME: dir,
  PATH: process.env.PATH ?? "",
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
});

const one = (spans: ReceivedSpan[], test: (s: ReceivedSpan) => boolean, what: string) => {
  const found = spans.filter(test);
  expect(found, what).toHaveLength(1);
  return found[0] as ReceivedSpan;
};
const byName = (spans: ReceivedSpan[], name: string) => one(spans, (s) => s.name === name, name);
const ofCall = (spans: ReceivedSpan[], name: string, id: string) =>
  one(spans, (s) => s.name === name && s.attributes["gen_ai.tool.call.id"] === id, `${name} ${id}`);
const contextOf = (s: ReceivedSpan | undefined) => `00-${s?.traceId}-${s?.spanId}-01`;

/** Each span with what tells it apart: a hook's outcome, a call's decision, a sandbox's network. */
const shape = (spans: ReceivedSpan[]) =>
  spanTree(spans, (s) =>
    [
      s.attributes["agentmd.hook.outcome"],
      s.attributes["agentmd.hook.exit_code"],
      s.attributes["agentmd.tool.decision"],
      s.attributes["agentmd.mcp.server.tools"],
      s.name === "sandbox" ? s.attributes["agentmd.sandbox.network"] : undefined,
      s.status.code === 2 ? "ERROR" : undefined,
    ]
      .filter((x) => x !== undefined)
      .join(" "),
  );

describe("spans of hooks, MCP servers and MCP calls", () => {
  it("are in the run's trace, under what they belong to, and each process runs in its own span's context", async () => {
    project();
    fake = await startFakeAnthropic(script());
    const r = await runCli(["run", "go"], { cwd: dir, env: traced(receiver.url) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(shape(spans)).toBe(
      [
        "invoke_agent main",
        "  hook SessionStart  continue 0",
        "  initialize probe  1",
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool mcp__probe__trace_context  allowed",
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool Bash  allowed",
        "    hook PreToolUse  continue 0",
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool Bash  blocked-by-hook ERROR",
        "    hook PreToolUse  block 2",
        `  chat ${DEFAULT_MODEL}`,
        "  hook Stop  continue 0",
      ].join("\n"),
    );

    // The top run's span, opened before its run_start by the session's hook, is the run's.
    expect(byName(spans, "invoke_agent main").attributes).toMatchObject({
      "gen_ai.agent.name": "main",
      "agentmd.run.outcome": "done",
    });
    const [allowedHook, blockingHook] = [
      ofCall(spans, "hook PreToolUse", "bash1"),
      ofCall(spans, "hook PreToolUse", "bash2"),
    ];
    expect(blockingHook.attributes).toMatchObject({
      "agentmd.hook.event": "PreToolUse",
      "agentmd.hook.matcher": "Bash",
      "agentmd.hook.origin": "agent.md",
      "agentmd.hook.outcome": "block",
      "agentmd.hook.reason": "no forbidden words",
      "agentmd.hook.exit_code": 2,
    });
    expect(String(blockingHook.attributes["agentmd.hook.command"])).toContain("grep -q forbidden");
    expect(blockingHook.status.code).toBe(0);

    // Each hook ran with the traceparent of its own span, not its call's.
    expect(readFileSync(path.join(dir, "pre-tp.txt"), "utf8")).toBe(`${contextOf(allowedHook)}\n`);
    expect(readFileSync(path.join(dir, "session-tp.txt"), "utf8")).toBe(
      `${contextOf(byName(spans, "hook SessionStart"))}\n`,
    );

    // The MCP server started in its start-up span's context; the call sent its own in _meta.
    const started = byName(spans, "initialize probe");
    expect(started.attributes).toMatchObject({
      "mcp.method.name": "initialize",
      "agentmd.mcp.server.name": "probe",
      "agentmd.mcp.transport": "stdio",
      "network.transport": "pipe",
      "agentmd.mcp.server.tools": 1,
      "agentmd.mcp.server.prompts": 0,
    });
    const mcpCall = byName(spans, "execute_tool mcp__probe__trace_context");
    expect(mcpCall.attributes).toMatchObject({
      "gen_ai.tool.type": "extension",
      "mcp.method.name": "tools/call",
      "agentmd.mcp.server.name": "probe",
      "agentmd.mcp.tool.name": "trace_context",
      "network.transport": "pipe",
    });
    const told = JSON.parse(resultText(resultsSent(fake, 1)[0])) as { meta: unknown; env: unknown };
    expect(told).toEqual({ meta: { traceparent: contextOf(mcpCall) }, env: contextOf(started) });
  });

  it("are the same from --replay as from the run recorded", async () => {
    project();
    fake = await startFakeAnthropic(script());
    const recording = path.join(dir, "run.jsonl");
    const live = await runCli(["run", "--record", recording, "go"], { cwd: dir, env: traced(receiver.url) });
    expect(live.code).toBe(0);
    const recorded = receiver.spans();
    await fake.close();
    fake = undefined;
    for (const f of ["pre-tp.txt", "session-tp.txt"]) rmSync(path.join(dir, f));
    const replayed = await runCli(["run", "--replay", recording], { cwd: dir, env: traced(receiver.url) });
    expect(replayed.stderr).toBe("");
    const again = receiver.spans().slice(recorded.length);
    expect(shape(again)).toBe(shape(recorded));
    expect(shape(again)).toContain("hook PreToolUse  block 2");
    expect(shape(again)).toContain("initialize probe  1");
    expect(new Set(again.map((s) => s.traceId)).size).toBe(1);
  });

  it("of the library's function hooks are said as a command hook's are", async () => {
    writeFiles(dir, { "agent.md": "---\nname: main\nallowed-tools: Bash(echo:*)\n---\nMain.\n" });
    fake = await startFakeAnthropic([call("Bash", { command: "echo hi" }, "bash1"), text("done")]);
    const runner = createRunner({
      projectDir: dir,
      env: traced(receiver.url),
      model: { apiKey: "k", baseURL: fake.url },
      hooks: {
        UserPromptSubmit: [{ run: () => undefined }],
        PreToolUse: [{ matcher: "Bash", origin: "library", run: () => ({ block: "not today" }) }],
      },
    });
    await drain(runner.run("go"));
    await runner.close();
    const spans = receiver.spans();
    expect(shape(spans)).toBe(
      [
        "invoke_agent main",
        "  hook UserPromptSubmit  continue",
        `  chat ${DEFAULT_MODEL}`,
        "  execute_tool Bash  blocked-by-hook ERROR",
        "    hook PreToolUse  block",
        `  chat ${DEFAULT_MODEL}`,
      ].join("\n"),
    );
    expect(ofCall(spans, "hook PreToolUse", "bash1").attributes).toMatchObject({
      "agentmd.hook.origin": "library",
      "agentmd.hook.reason": "not today",
    });
  });

  it("of an HTTP server's call carry the call's context in params._meta too", async () => {
    const server = await startHttpMcpServer("traced", "http");
    try {
      writeFiles(dir, {
        "agent.md": "---\nname: main\nallowed-tools: mcp__probe__trace_context\n---\nMain.\n",
        ".mcp.json": mcpJson({ probe: { type: "http", url: server.url } }),
      });
      trustProject(dir, dir);
      fake = await startFakeAnthropic([call("mcp__probe__trace_context", {}, "mcp1"), text("done")]);
      const r = await runCli(["run", "go"], { cwd: dir, env: traced(receiver.url) });
      expect(r.code).toBe(0);
      const spans = receiver.spans();
      expect(byName(spans, "initialize probe").attributes).toMatchObject({
        "agentmd.mcp.transport": "http",
        "network.transport": "tcp",
      });
      const mcpCall = byName(spans, "execute_tool mcp__probe__trace_context");
      const told = JSON.parse(resultText(resultsSent(fake, 1)[0])) as { meta: unknown };
      expect(told.meta).toEqual({ traceparent: contextOf(mcpCall) });
    } finally {
      await server.close();
    }
  });

  it("say a server that did not start", async () => {
    writeFiles(dir, {
      "agent.md": "---\nname: main\nallowed-tools: Bash(echo:*), mcp__broken\n---\nMain.\n",
      ".mcp.json": mcpJson({ broken: stdioServer("fails-to-start") }),
    });
    trustProject(dir, dir);
    fake = await startFakeAnthropic([text("done")]);
    await runCli(["run", "go"], { cwd: dir, env: traced(receiver.url) });
    const failed = byName(receiver.spans(), "initialize broken");
    expect(failed.attributes["error.type"]).toBe("mcp_server_failed");
    expect(failed.status).toMatchObject({ code: 2 });
    expect(failed.status.message).toContain("GITHUB_TOKEN is not valid");
    expect(spanTree(receiver.spans())).toContain("invoke_agent main\n  initialize broken");
  });
});

describe.runIf(runSandboxTests)("spans of the OS sandbox", () => {
  it("say a command ran sandboxed, what it could write and reach, and a refusal", async () => {
    project("sandbox: true");
    fake = await startFakeAnthropic(script());
    const r = await runCli(["run", "go"], { cwd: dir, env: traced(receiver.url) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const spans = receiver.spans();
    expect(shape(spans)).toContain(
      ["  execute_tool Bash  allowed", "    hook PreToolUse  continue 0", "    sandbox  none"].join("\n"),
    );
    const bash = ofCall(spans, "execute_tool Bash", "bash1");
    expect(bash.attributes).toMatchObject({ "agentmd.sandbox": true, "agentmd.sandbox.network": "none" });
    const sandbox = byName(spans, "sandbox");
    expect(sandbox.parentSpanId).toBe(bash.spanId);
    expect(sandbox.attributes["agentmd.sandbox.writable"]).toEqual(
      bash.attributes["agentmd.sandbox.writable"],
    );
    expect(sandbox.attributes["agentmd.sandbox.read_only"]).toBeInstanceOf(Array);
    // The blocked call never reached the sandbox.
    expect(ofCall(spans, "execute_tool Bash", "bash2").attributes["agentmd.sandbox"]).toBeUndefined();

    // A list the sandbox cannot honour (its Read deny hides the working folder): the command is refused.
    project("sandbox: true\ndisallowed-tools: Read(./**)");
    await fake.close();
    fake = await startFakeAnthropic([call("Bash", { command: "echo hello" }, "bash3"), text("done")]);
    const before = spans.length;
    await runCli(["run", "go"], { cwd: dir, env: traced(receiver.url) });
    const refused = receiver.spans().slice(before);
    const refusal = byName(refused, "sandbox");
    expect(refusal.status).toMatchObject({ code: 2 });
    expect(refusal.status.message).toContain("which a Read deny rule hides from commands");
    expect(refusal.attributes["error.type"]).toBe("sandbox_refused");
    expect(ofCall(refused, "execute_tool Bash", "bash3").attributes["agentmd.sandbox.refused"]).toContain(
      "cannot be set up",
    );
  });
});
