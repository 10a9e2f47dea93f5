// bench/batch-10k: 1,000 and then 10,000 items through the queue (real Redis, real BullMQ, the
// built CLI: `batch --redis --wait` collecting, 3 worker processes running), and through the local
// `agentmd batch`, against the fake Anthropic server answering at once. Each run is a Read and an
// answer (two requests). Measured: the peak RSS (VmHWM) of the collector, of the busiest worker and
// of the local batch at each size, and their ratio 10,000 : 1,000 (flat memory: ~1; holding every
// item or result would make it grow with the batch), and the runs per second.
// Peak RSS counts V8's garbage as well as what is kept: a worker's heap after a full GC stays at
// ~30 MB from its 1,000th run to its 3,000th (and a local batch's from 1,200 to 6,000 runs), while
// without forced GCs its heap reaches ~140 MB before a major GC and the heap V8 reserves grows to
// ~175 MB (RSS ~250 MB) as the run goes on. A ratio above FLAT_RATIO here is V8 sizing its heap
// to the allocation rate unless the heap after a GC grows too (bench/soak.js measures that).
// (A worker started with `node --optimize-for-size` peaked at 113 MB instead of 256 MB over 3,000
// runs, and took 59 s instead of 40 s.)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, REPO_ROOT, requireRedisServer, startRedis } from "./support.js";

const SIZES = (process.env.BENCH_10K_SIZES ?? "1000,10000").split(",").map(Number);
const WORKERS = 3;
const PER_WORKER = 8;
const LOCAL_CONCURRENCY = 8;
const BIN = path.join(REPO_ROOT, "bin/agentmd.js");
// Flat: the 10,000-item run's peak within this of the 1,000-item run's.
const FLAT_RATIO = 1.25;

requireRedisServer("batch-10k");

const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");

function answer(req) {
  const last = req.body.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  return answered
    ? { kind: "message", content: [{ type: "text", text: "done" }] }
    : { kind: "message", content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }] };
}

/** The process's peak resident set so far (MB), from /proc: 0 once it is gone. */
function peakMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The CLI as a child; `peak()` is its peak RSS as last seen (polled, since it is gone at the end). */
function run(args, { cwd, env }) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakMb(child.pid));
  }, 100);
  let lines = 0;
  let firstLineAt;
  let stderr = "";
  child.stdout.on("data", (d) => {
    const n = d.toString().split("\n").length - 1;
    if (n > 0 && firstLineAt === undefined) firstLineAt = performance.now();
    lines += n;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise((resolve) =>
    child.on("close", (code) => {
      clearInterval(poll);
      resolve({ code, lines: () => lines, stderr: () => stderr, firstLineAt });
    }),
  );
  return {
    child,
    done,
    stderr: () => stderr,
    peak: () => {
      peak = Math.max(peak, peakMb(child.pid));
      return peak;
    },
  };
}

function itemsFile(dir, name, n) {
  const file = path.join(dir, name);
  const lines = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ id: `r${i}`, prompt: `run ${i}` }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return name;
}

async function untilSaid(p, text) {
  while (!p.stderr().includes(text)) await new Promise((r) => setTimeout(r, 50));
}

async function queueRun(n, project, env, url) {
  const queue = `q${n}`;
  const workers = Array.from({ length: WORKERS }, () =>
    run(["worker", "--redis", url, "--queue", queue, "--concurrency", String(PER_WORKER)], {
      cwd: project,
      env,
    }),
  );
  await Promise.all(workers.map((w) => untilSaid(w, "at once")));
  const file = itemsFile(project, `queue-${n}.jsonl`, n);
  const t = performance.now();
  const wait = run(["batch", file, "--redis", url, "--queue", queue, "--wait"], { cwd: project, env });
  const r = await wait.done;
  const s = (performance.now() - t) / 1000;
  if (r.code !== 0) throw new Error(`batch --wait failed (${r.code}): ${r.stderr().slice(-2000)}`);
  if (r.lines() !== n) throw new Error(`expected ${n} result lines, got ${r.lines()}`);
  const workerPeak = Math.max(...workers.map((w) => w.peak()));
  for (const w of workers) w.child.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.done));
  return { collector: wait.peak(), worker: workerPeak, perS: n / s, s, firstS: (r.firstLineAt - t) / 1000 };
}

async function localRun(n, project, env) {
  const file = itemsFile(project, `local-${n}.jsonl`, n);
  const t = performance.now();
  const p = run(["batch", file, "--concurrency", String(LOCAL_CONCURRENCY)], { cwd: project, env });
  const r = await p.done;
  const s = (performance.now() - t) / 1000;
  if (r.code !== 0) throw new Error(`local batch failed (${r.code}): ${r.stderr().slice(-2000)}`);
  if (r.lines() !== n) throw new Error(`expected ${n} result lines, got ${r.lines()}`);
  return { local: p.peak(), perS: n / s, s, firstS: (r.firstLineAt - t) / 1000 };
}

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-10k-"));
const project = path.join(dir, "project");
mkdirSync(project);
writeFileSync(path.join(project, "agent.md"), "---\nallowed-tools: Read\n---\nBe brief.\n");
writeFileSync(path.join(project, "a.txt"), "alpha\n");
const redis = await startRedis(dir);
const figures = {};
try {
  for (const n of SIZES) {
    const fake = await startFakeAnthropic([]);
    fake.push(...Array.from({ length: n * 4 + 100 }, () => answer));
    const env = { PATH: process.env.PATH ?? "", ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url };
    const q = await queueRun(n, project, env, redis.url);
    const l = await localRun(n, project, env);
    figures[n] = { q, l };
    console.log(`  (measured ${n} items: ${JSON.stringify(figures[n])})`);
    await fake.close();
  }
} finally {
  redis.child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `bench/batch-10k — items through the queue (${WORKERS} workers x ${PER_WORKER} at once, batch --redis --wait collecting) and the local batch (${LOCAL_CONCURRENCY} at once); fake API answering at once; a Read and an answer per run; peak RSS (VmHWM)`,
);
for (const n of SIZES) {
  const { q, l } = figures[n];
  console.log(
    `  ${String(n).padStart(6)} items  queue: collector ${fmt(q.collector, 0)} MB, worker ${fmt(q.worker, 0)} MB, ${fmt(q.perS, 0)} runs/s (${fmt(q.s, 1)} s, first result after ${fmt(q.firstS, 1)} s)  local: ${fmt(l.local, 0)} MB, ${fmt(l.perS, 0)} runs/s (${fmt(l.s, 1)} s, first result after ${fmt(l.firstS, 1)} s)`,
  );
}
const [small, big] = [SIZES[0], SIZES.at(-1)];
const ratio = (get) => get(figures[big]) / get(figures[small]);
const r = {
  collector: ratio((f) => f.q.collector),
  worker: ratio((f) => f.q.worker),
  local: ratio((f) => f.l.local),
};
const misses = Object.entries(r)
  .filter(([, v]) => v > FLAT_RATIO)
  .map(([k]) => k);
console.log(
  `RESULT batch-10k collector_mb_ratio=${fmt(r.collector)} worker_mb_ratio=${fmt(r.worker)} local_mb_ratio=${fmt(r.local)} target<=${FLAT_RATIO} collector_mb_${big}=${fmt(figures[big].q.collector, 0)} worker_mb_${big}=${fmt(figures[big].q.worker, 0)} local_mb_${big}=${fmt(figures[big].l.local, 0)} queue_runs_per_s_${big}=${fmt(figures[big].q.perS, 0)} local_runs_per_s_${big}=${fmt(figures[big].l.perS, 0)}${misses.length ? ` missed=${misses.join(",")}` : ""}`,
);
