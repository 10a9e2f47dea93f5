// bench/mcp: tools from an MCP server (the test suite's stdio server, 200 tools), against the fake
// Anthropic server over real HTTP and SSE.
// - turn-0 request bytes and first-answer time with 200 MCP tools, deferred behind ToolSearch
//   (toolSearch: true) vs sent up front (toolSearch: false); the server is started once, before,
//   so the figures are the request's and the loop's, not the server's start-up;
// - the time an MCP call adds over a built-in-like call: 30 calls of an MCP tool vs 30 calls of an
//   in-process tool in the same loop, per call.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, median, REPO_ROOT } from "./support.js";

const SERVER = path.join(REPO_ROOT, "test/support/mcp/stdio-server.mjs");
const CALLS = 30;

async function fake(steps) {
  const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");
  return startFakeAnthropic(steps);
}

async function runnerFor(dir, server, toolSearch, extra = []) {
  const { createRunner } = await import("../dist/invocation/runner.js");
  return createRunner({
    projectDir: dir,
    env: {},
    model: { apiKey: "bench", baseURL: server.url, maxRetries: 0 },
    tools: { toolSearch, extra },
    limits: { maxIterations: CALLS + 5 },
    transcript: { enabled: false },
  });
}

function project(kind, allow) {
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-mcp-"));
  writeFileSync(
    path.join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { inv: { command: process.execPath, args: [SERVER, kind] } } }),
  );
  writeFileSync(path.join(dir, "agent.md"), `---\nallowed-tools: ${allow}\n---\nYou help.\n`);
  return dir;
}

/** Turn 0 with 200 tools: request bytes and the time to the first answer, after a warm-up run. */
async function firstAnswer(toolSearch) {
  const dir = project("many:200", "ToolSearch, Noop, mcp__inv");
  const server = await fake([]);
  const runner = await runnerFor(dir, server, toolSearch);
  const times = [];
  for (let i = 0; i < 12; i++) {
    server.push({ kind: "message", content: [{ type: "text", text: "hello" }] });
    const t = performance.now();
    const handle = runner.run("hi");
    let first;
    for await (const e of handle)
      if (e.type === "message_delta" && first === undefined) first = performance.now();
    await handle.result();
    if (i >= 2) times.push(first - t);
  }
  const bytes = server.requests.at(-1).rawBody.length;
  await runner.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms: median(times), bytes };
}

/** Per-call time of CALLS calls to `tool` (after a warm-up run that starts the server). */
async function perCall(tool) {
  const { defineTool, ok } = await import("../dist/tools/index.js");
  const noop = defineTool({
    name: "Noop",
    description: "Does nothing.",
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
    execute: async () => ok("ok"),
  });
  const dir = project("many:3", "Noop, mcp__inv");
  const server = await fake([]);
  const runner = await runnerFor(dir, server, false, [noop]);
  const script = () => {
    for (let i = 0; i < CALLS; i++)
      server.push({ kind: "message", content: [{ type: "tool_use", name: tool, input: { id: String(i) } }] });
    server.push({ kind: "message", content: [{ type: "text", text: "done" }] });
  };
  const times = [];
  for (let round = 0; round < 6; round++) {
    script();
    let sum = 0;
    let started;
    for await (const e of runner.run("go")) {
      if (e.type === "tool_start") started = performance.now();
      if (e.type === "tool_end") sum += performance.now() - started;
    }
    if (round >= 1) times.push(sum / CALLS);
  }
  await runner.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return median(times);
}

const deferred = await firstAnswer(true);
const sent = await firstAnswer(false);
const builtin = await perCall("Noop");
const mcp = await perCall("mcp__inv__tool_000");
console.log("bench/mcp — 200 tools of a stdio MCP server, fake Anthropic server on 127.0.0.1");
console.log(
  `  turn 0, definitions sent       ${String(sent.bytes).padStart(7)} bytes   first answer ${fmt(sent.ms, 1)} ms`,
);
console.log(
  `  turn 0, deferred (ToolSearch)  ${String(deferred.bytes).padStart(7)} bytes   first answer ${fmt(deferred.ms, 1)} ms   ${fmt(sent.bytes / deferred.bytes, 1)}x smaller`,
);
console.log(
  `  one call: in-process tool ${fmt(builtin, 3)} ms, MCP tool over stdio ${fmt(mcp, 3)} ms (+${fmt(mcp - builtin, 3)} ms)`,
);
console.log(
  `RESULT mcp turn0_bytes_sent=${sent.bytes} turn0_bytes_deferred=${deferred.bytes} bytes_ratio=${fmt(sent.bytes / deferred.bytes, 1)} first_answer_ms_sent=${fmt(sent.ms, 1)} first_answer_ms_deferred=${fmt(deferred.ms, 1)} call_ms_builtin=${fmt(builtin, 3)} call_ms_mcp=${fmt(mcp, 3)} mcp_overhead_ms=${fmt(mcp - builtin, 3)}`,
);
