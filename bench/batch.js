// bench/batch: runs on a queue, with 1, 2 and 4 worker processes (real Redis, real BullMQ) against
// the fake Anthropic server with a fixed model latency and a rate limit of its own. Each run is a
// Read and an answer (two requests). Throughput grows with the workers until the server's rate
// limit (429 with retry-after) caps it; the figure is runs/s and its ratio to one worker, against
// the ideal min(workers x one worker, the limit). Runs/s are counted from the first model request to
// the last answer, so the start-up of the CLI processes (the same for every row) is left out.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, requireRedisServer, runAgentmd, startAgentmdWorker, startRedis } from "./support.js";

const RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 200);
const LATENCY_MS = 200;
const PER_WORKER = 4;
// Requests per second the server answers before it says 429; two requests make a run.
const RATE_LIMIT = 60;
const WORKERS = [1, 2, 4];

requireRedisServer("batch");

const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");

/** A token bucket: RATE_LIMIT a second, bursts of a fifth of that; a request over it is told when to retry. */
function rateLimited(answer) {
  const capacity = RATE_LIMIT / 5;
  let tokens = capacity;
  let at = performance.now();
  let limited = 0;
  const step = (req) => {
    const now = performance.now();
    req.at = now;
    tokens = Math.min(capacity, tokens + ((now - at) / 1000) * RATE_LIMIT);
    at = now;
    if (tokens < 1) {
      limited++;
      const waitMs = Math.ceil(((1 - tokens) / RATE_LIMIT) * 1000);
      return { kind: "http-error", status: 429, headers: { "retry-after-ms": String(waitMs) } };
    }
    tokens -= 1;
    return answer(req);
  };
  return { step, limited: () => limited };
}

function answer(req) {
  const last = req.body.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  return answered
    ? { kind: "message", delayMs: LATENCY_MS, content: [{ type: "text", text: "done" }] }
    : {
        kind: "message",
        delayMs: LATENCY_MS,
        content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }],
      };
}

/** Starts a worker and resolves once it is taking jobs. */
function startWorker(cwd, env, url) {
  return startAgentmdWorker(["--redis", url, "--concurrency", String(PER_WORKER)], { cwd, env });
}

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-batch-"));
const project = path.join(dir, "project");
mkdirSync(project);
writeFileSync(path.join(project, "agent.md"), "---\nallowed-tools: Read\n---\nBe brief.\n");
writeFileSync(path.join(project, "a.txt"), "alpha\n");
const redis = await startRedis(dir);
const figures = {};
let limitedTotal = 0;
try {
  for (const w of WORKERS) {
    const limiter = rateLimited(answer);
    const fake = await startFakeAnthropic(Array.from({ length: RUNS * 20 }, () => limiter.step));
    const env = { PATH: process.env.PATH ?? "", ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url };
    const workers = Array.from({ length: w }, () => startWorker(project, env, redis.url));
    await Promise.all(workers.map((x) => x.ready));
    const lines = Array.from({ length: RUNS }, (_, i) => JSON.stringify({ id: `r${i}`, prompt: `run ${i}` }));
    writeFileSync(path.join(project, `w${w}.jsonl`), `${lines.join("\n")}\n`);
    const r = await runAgentmd(["batch", `w${w}.jsonl`, "--redis", redis.url, "--wait"], {
      cwd: project,
      env,
    });
    const s = (fake.requests.at(-1).at + LATENCY_MS - fake.requests[0].at) / 1000;
    if (r.code !== 0) throw new Error(`batch failed (${r.code}): ${r.stderr}`);
    const results = r.stdout.trim().split("\n").length;
    if (results !== RUNS) throw new Error(`expected ${RUNS} results, got ${results}`);
    figures[w] = { perS: RUNS / s, s, limited: limiter.limited() };
    limitedTotal += limiter.limited();
    for (const x of workers) x.child.kill("SIGTERM");
    await Promise.all(workers.map((x) => x.done));
    await fake.close();
  }
} finally {
  redis.child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

const one = figures[1].perS;
const cap = RATE_LIMIT / 2;
console.log(
  `bench/batch — ${RUNS} runs (a Read and an answer each) on a queue, ${PER_WORKER} runs at once per worker, model latency ${LATENCY_MS} ms, server rate limit ${RATE_LIMIT} requests/s (${cap} runs/s)`,
);
for (const w of WORKERS) {
  const f = figures[w];
  const ideal = Math.min(w * one, cap) / one;
  console.log(
    `  ${w} worker${w === 1 ? " " : "s"}  ${fmt(f.perS, 1).padStart(6)} runs/s  ${fmt(f.perS / one)}x one worker (ideal ${fmt(ideal)}x)  ${fmt((100 * f.perS) / cap, 0)}% of the rate limit  ${f.limited} requests answered 429`,
  );
}
const ratio = (w) => fmt(figures[w].perS / one);
console.log(
  `RESULT batch runs_per_s_1=${fmt(one, 1)} runs_per_s_2=${fmt(figures[2].perS, 1)} runs_per_s_4=${fmt(figures[4].perS, 1)} ratio_2=${ratio(2)} target>=1.8 ratio_4=${ratio(4)} cap_ratio=${fmt(cap / one)} share_of_limit_4=${fmt(figures[4].perS / cap)} rate_limited=${limitedTotal}`,
);
