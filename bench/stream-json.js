// bench/stream-json: where agentmd's Agent SDK road spends per turn beyond `-p`. The same N Bash
// turns (`true`) then an answer, whole processes against the fake server, three ways: `agentmd -p`
// (the floor), `agentmd --input-format stream-json` fed one user message on stdin (the protocol
// alone), and the Agent SDK program (bench/contenders/sdk-query.mjs: the protocol plus the SDK).
// Per turn = (time at N turns - time at 0) / N. Alternating runs, medians.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, median, REPO_ROOT } from "./support.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TURNS = Number(process.env.BENCH_TURNS ?? 50);
const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");
const AGENTMD = path.join(REPO_ROOT, "bin/agentmd.js");

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-stream-"));
writeFileSync(
  path.join(dir, "agent.md"),
  "---\nallowed-tools: Bash\nmaxIterations: 100\n---\nYou run commands.\n",
);

/** Turn t's call while t < turns, then "done": by the conversation, so side requests take no step. */
function steps(turns) {
  const reply = (req) => {
    const t = (req.body.messages ?? []).filter((m) => m.role === "assistant").length;
    if (t < turns)
      return {
        kind: "message",
        content: [{ type: "tool_use", name: "Bash", input: { command: "true" }, id: `t${t}` }],
      };
    return { kind: "message", content: [{ type: "text", text: "done" }] };
  };
  return Array.from({ length: turns + 5 }, () => reply);
}

const USER = `${JSON.stringify({ type: "user", message: { role: "user", content: "go" }, parent_tool_use_id: null })}\n`;
const WAYS = {
  "-p": { args: [AGENTMD, "-p", "go", "--output-format", "stream-json", "--verbose"] },
  "stream-json": {
    args: [AGENTMD, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
    input: USER,
  },
  "sdk query()": { args: [path.join(REPO_ROOT, "bench/contenders/sdk-query.mjs"), "go"] },
};

function runOnce(way, url) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, way.args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        ANTHROPIC_API_KEY: "bench",
        ANTHROPIC_BASE_URL: url,
        BENCH_EXE: AGENTMD,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.stdin.end(way.input ?? "");
    child.on("close", (code) => {
      if (code !== 0 || !out.includes("done")) reject(new Error(`${way.args[1]} failed (${code}): ${err}`));
      else resolve(performance.now() - t);
    });
  });
}

async function measure(turns) {
  const times = Object.fromEntries(Object.keys(WAYS).map((n) => [n, []]));
  for (let r = 0; r < ROUNDS + 1; r++) {
    const names = Object.keys(WAYS);
    for (const name of r % 2 ? names.reverse() : names) {
      const server = await startFakeAnthropic(steps(turns));
      const ms = await runOnce(WAYS[name], server.url);
      await server.close();
      if (r > 0) times[name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([n, xs]) => [n, median(xs)]));
}

console.log(`bench/stream-json — whole processes, median of ${ROUNDS} alternating runs each`);
const zero = await measure(0);
const many = await measure(TURNS);
const perTurn = {};
for (const name of Object.keys(WAYS)) {
  perTurn[name] = (many[name] - zero[name]) / TURNS;
  console.log(
    `  ${name.padEnd(12)} first answer ${fmt(zero[name], 0).padStart(6)} ms   ${TURNS} turns ${fmt(many[name], 0).padStart(6)} ms   per turn ${fmt(perTurn[name], 1).padStart(5)} ms`,
  );
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `RESULT stream-json per_turn_p_ms=${fmt(perTurn["-p"], 1)} per_turn_stream_ms=${fmt(perTurn["stream-json"], 1)} per_turn_sdk_ms=${fmt(perTurn["sdk query()"], 1)}`,
);
