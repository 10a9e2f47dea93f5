// bench/loop: the run loop against the fake Anthropic server, over real HTTP and SSE.
// - 50 tool turns of a no-op tool: agentmd's wall time as a ratio to a hand-written streaming loop
//   on the raw SDK over the same server (target <= 1.15x; per-turn overhead above it < 1 ms);
// - 8 concurrent-safe calls of 100 ms in one response: the batch's wall time as a ratio to the
//   ideal for the configured concurrency (4: two waves, 200 ms; target <= 1.2x);
// - peak RSS of the 50-turn run, with the floor's beside it.
// Each measurement runs in its own process (RSS is per process), alternating, several times.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, median } from "./support.js";

const TURNS = 50;
const here = fileURLToPath(import.meta.url);
const mode = process.argv[2];

async function fake(steps) {
  const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");
  return startFakeAnthropic(steps);
}

function toolTurns() {
  const steps = [];
  for (let i = 0; i < TURNS; i++) {
    steps.push({ kind: "message", content: [{ type: "tool_use", name: "Noop", input: { n: i } }] });
  }
  steps.push({ kind: "message", content: [{ type: "text", text: "done" }] });
  return steps;
}

const NOOP_SCHEMA = { type: "object", properties: { n: { type: "integer" } } };

async function floor() {
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const server = await fake(toolTurns());
  const client = new Anthropic({ apiKey: "bench", baseURL: server.url, maxRetries: 0, logLevel: "off" });
  const tools = [{ name: "Noop", description: "Does nothing.", input_schema: NOOP_SCHEMA }];
  const messages = [{ role: "user", content: "go" }];
  const t = performance.now();
  for (;;) {
    const stream = client.messages.stream({ model: "claude-sonnet-5-5", max_tokens: 1024, messages, tools });
    stream.on("text", () => {});
    const msg = await stream.finalMessage();
    messages.push({ role: "assistant", content: msg.content });
    if (msg.stop_reason !== "tool_use") break;
    const results = msg.content
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ type: "tool_result", tool_use_id: b.id, content: "ok" }));
    messages.push({ role: "user", content: results });
  }
  const ms = performance.now() - t;
  await server.close();
  return { ms };
}

async function agentmd() {
  const { createRunner } = await import("../dist/invocation/runner.js");
  const { defineTool, ok } = await import("../dist/tools/index.js");
  const noop = defineTool({
    name: "Noop",
    description: "Does nothing.",
    inputSchema: NOOP_SCHEMA,
    execute: async () => ok("ok"),
  });
  const server = await fake(toolTurns());
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-"));
  const runner = createRunner({
    cwd: dir,
    env: {},
    model: { apiKey: "bench", baseURL: server.url, maxRetries: 0 },
    tools: { builtin: false, extra: [noop] },
    // No agent.md: the tool is pre-approved, as --allowedTools would, so each call runs.
    permissions: { allow: ["Noop"] },
    limits: { maxIterations: TURNS + 5 },
    transcript: { dir },
  });
  const t = performance.now();
  const handle = runner.run("go");
  for await (const e of handle) {
    // the CLI and transcript consume the same events; every call must have run
    if (e.type === "tool_end" && e.decision !== "allowed") throw new Error(`Noop was not run: ${e.decision}`);
  }
  const r = await handle.result();
  const ms = performance.now() - t;
  if (r.turns !== TURNS + 1) throw new Error(`expected ${TURNS + 1} turns, got ${r.turns}`);
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms };
}

async function parallel() {
  const { createRunner } = await import("../dist/invocation/runner.js");
  const { defineTool, ok } = await import("../dist/tools/index.js");
  const sleep = defineTool({
    name: "Sleep",
    description: "Sleeps 100 ms.",
    inputSchema: { type: "object", properties: { i: { type: "integer" } } },
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    execute: () => new Promise((r) => setTimeout(() => r(ok("slept")), 100)),
  });
  const uses = Array.from({ length: 8 }, (_, i) => ({ type: "tool_use", name: "Sleep", input: { i } }));
  const server = await fake([
    { kind: "message", content: uses },
    { kind: "message", content: [{ type: "text", text: "ok" }] },
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-"));
  const runner = createRunner({
    cwd: dir,
    env: {},
    model: { apiKey: "bench", baseURL: server.url, maxRetries: 0 },
    tools: { builtin: false, extra: [sleep] },
    permissions: { allow: ["Sleep"] },
    transcript: { dir },
  });
  let first;
  let last;
  for await (const e of runner.run("go")) {
    if (e.type === "tool_start" && first === undefined) first = performance.now();
    if (e.type === "tool_end") {
      if (e.decision !== "allowed") throw new Error(`Sleep was not run: ${e.decision}`);
      last = performance.now();
    }
  }
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms: last - first };
}

if (mode === "timing") {
  // Wall time: both loops in one process, alternating after a warm-up, so noise hits both alike.
  const times = { floor: [], agentmd: [], parallel: [] };
  for (let i = 0; i < 12; i++) {
    for (const m of ["floor", "agentmd", "parallel"]) {
      const r = await { floor, agentmd, parallel }[m]();
      if (i >= 2) times[m].push(r.ms);
    }
  }
  process.stdout.write(
    JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))),
  );
} else if (mode) {
  const r = await { floor, agentmd, parallel }[mode]();
  process.stdout.write(JSON.stringify({ ...r, maxRssKb: process.resourceUsage().maxRSS }));
} else {
  const run = (m) => JSON.parse(spawnSync(process.execPath, [here, m], { encoding: "utf8" }).stdout);
  const t = run("timing");
  // Peak RSS: each loop alone in a fresh process.
  const rssOf = (m) => median([run(m), run(m), run(m)].map((s) => s.maxRssKb)) / 1024;
  const rss = { floor: rssOf("floor"), agentmd: rssOf("agentmd") };
  const ratio = t.agentmd / t.floor;
  const perTurn = (t.agentmd - t.floor) / (TURNS + 1);
  const parRatio = t.parallel / 200;
  console.log(
    `bench/loop — ${TURNS} tool turns + 1, fake server on 127.0.0.1, median of 10 alternating runs`,
  );
  console.log(
    `  raw SDK loop (floor)   ${fmt(t.floor, 0).padStart(6)} ms   peak RSS ${fmt(rss.floor, 0)} MB`,
  );
  console.log(
    `  agentmd                ${fmt(t.agentmd, 0).padStart(6)} ms   peak RSS ${fmt(rss.agentmd, 0)} MB   ${fmt(ratio)}x floor, ${fmt(perTurn, 2)} ms/turn above it`,
  );
  console.log(
    `  8 x 100 ms concurrent-safe calls, concurrency 4: ${fmt(t.parallel, 0)} ms   ${fmt(parRatio)}x the ideal 200 ms`,
  );
  console.log(
    `RESULT loop ratio=${fmt(ratio)} target<=1.15 per_turn_ms=${fmt(perTurn, 2)} target<1 parallel_ratio=${fmt(parRatio)} target<=1.20 rss_mb=${fmt(rss.agentmd, 0)} floor_rss_mb=${fmt(rss.floor, 0)}`,
  );
}
