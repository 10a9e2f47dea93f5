// bench/cli: whole processes, as a user runs them. Each contender is started fresh against the same
// fake server (real HTTP and SSE) for the same work: N tool turns of Bash `true` (one call a turn,
// or four read-only calls a turn), then an answer. The floor is a hand-written streaming loop on the
// raw SDK with a real Bash tool (bench/contenders/raw-sdk.mjs). Alternating runs, medians, ratios.
// Targets: N=0 (first answer) <= 1.15x; N=50 <= 1.10x; N=10 x 4 calls <= 1.15x; peak RSS <= 1.2x;
// the time per extra turn above the floor's <= 1 ms.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, median, REPO_ROOT } from "./support.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-cli-"));
writeFileSync(
  path.join(dir, "agent.md"),
  "---\nallowed-tools: Bash\nmaxIterations: 100\n---\nYou run commands.\n",
);

function script(turns, perTurn) {
  const steps = [];
  for (let t = 0; t < turns; t++) {
    const content = Array.from({ length: perTurn }, (_, i) => ({
      type: "tool_use",
      name: "Bash",
      input: { command: "true" },
      id: `t${t}_${i}`,
    }));
    steps.push({ kind: "message", content });
  }
  steps.push({ kind: "message", content: [{ type: "text", text: "done" }] });
  return steps;
}

const CONTENDERS = {
  floor: [path.join(REPO_ROOT, "bench/contenders/raw-sdk.mjs"), "go"],
  agentmd: [path.join(REPO_ROOT, "bin/agentmd.js"), "run", "go"],
};

function runOnce(name, url) {
  const [entry, ...args] = CONTENDERS[name];
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(
      process.execPath,
      ["--require", path.join(REPO_ROOT, "bench/contenders/rss.cjs"), entry, ...args],
      {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: url },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    let first;
    child.stdout.on("data", (d) => {
      first ??= performance.now() - t;
      out += d;
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const ms = performance.now() - t;
      const rss = Number(/PEAK_RSS_KB=(\d+)/.exec(err)?.[1] ?? 0) / 1024;
      if (code !== 0 || !out.includes("done")) reject(new Error(`${name} failed (${code}): ${out}\n${err}`));
      else resolve({ ms, first: first ?? ms, rss });
    });
  });
}

async function measure(turns, perTurn) {
  const times = { floor: [], agentmd: [] };
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const name of r % 2 ? ["agentmd", "floor"] : ["floor", "agentmd"]) {
      const server = await startFakeAnthropic(script(turns, perTurn));
      const res = await runOnce(name, server.url);
      await server.close();
      if (r > 0) times[name].push(res);
    }
  }
  const med = (name, key) => median(times[name].map((x) => x[key]));
  return {
    floor: med("floor", "ms"),
    agentmd: med("agentmd", "ms"),
    floorRss: Math.max(...times.floor.map((x) => x.rss)),
    agentmdRss: Math.max(...times.agentmd.map((x) => x.rss)),
  };
}

const cases = [
  ["N=0 (first answer)", 0, 1],
  ["N=10", 10, 1],
  ["N=50", 50, 1],
  ["N=10, 4 calls a turn", 10, 4],
];
console.log(`bench/cli — whole processes against the fake server, median of ${ROUNDS} alternating runs each`);
const out = {};
for (const [label, turns, perTurn] of cases) {
  const m = await measure(turns, perTurn);
  out[label] = m;
  console.log(
    `  ${label.padEnd(22)} floor ${fmt(m.floor, 0).padStart(5)} ms   agentmd ${fmt(m.agentmd, 0).padStart(5)} ms   ${fmt(m.agentmd / m.floor)}x   peak RSS ${fmt(m.floorRss, 0)} / ${fmt(m.agentmdRss, 0)} MB`,
  );
}
rmSync(dir, { recursive: true, force: true });
const perTurn = (x) => (x["N=50"].agentmd - x["N=10"].agentmd - (x["N=50"].floor - x["N=10"].floor)) / 40;
const rss = Math.max(...Object.values(out).map((m) => m.agentmdRss / m.floorRss));
console.log(`  time per extra turn above the floor's: ${fmt(perTurn(out), 2)} ms`);
console.log(
  `RESULT cli first_answer_ratio=${fmt(out["N=0 (first answer)"].agentmd / out["N=0 (first answer)"].floor)} target<=1.15 n50_ratio=${fmt(out["N=50"].agentmd / out["N=50"].floor)} target<=1.10 n10x4_ratio=${fmt(out["N=10, 4 calls a turn"].agentmd / out["N=10, 4 calls a turn"].floor)} target<=1.15 rss_ratio=${fmt(rss)} target<=1.20 per_turn_ms=${fmt(perTurn(out), 2)} target<=1`,
);
