import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The shared public corpus when it sits beside the checkout, else the repository's own fixtures. */
export function corpusDir() {
  const shared = path.resolve(REPO_ROOT, "../shared/corpus");
  return existsSync(shared) ? shared : path.join(REPO_ROOT, "test/fixtures");
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Times `fns` (name → function) in interleaved rounds, so that machine noise hits each alike.
 * Returns the median milliseconds of each.
 */
export function interleave(fns, { warmup = 3, rounds = 15 } = {}) {
  const names = Object.keys(fns);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (const n of names) {
      const t = performance.now();
      fns[n]();
      const dt = performance.now() - t;
      if (r >= warmup) times[n].push(dt);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

export const fmt = (x, digits = 2) => x.toFixed(digits);

/** Ends the bench (exit 0, a skipped RESULT line) when Debian's redis-server is not installed. */
export function requireRedisServer(name) {
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0) return;
  console.log(`bench/${name} — skipped: redis-server is not on PATH (apt-get install redis-server)`);
  console.log(`RESULT ${name} skipped=no-redis-server`);
  process.exit(0);
}

/** A free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A private redis-server without persistence on a free port, data in `dir`; resolves once ready. */
export async function startRedis(dir) {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** The built CLI a user runs. */
export const AGENTMD_BIN = path.join(REPO_ROOT, "bin/agentmd.js");

/** The built CLI as a child process: resolves with its exit code and output once it has closed. */
export function runAgentmd(args, { cwd, env, onStart }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [AGENTMD_BIN, ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    onStart?.(child);
  });
}

/** `agentmd worker …args`; `ready` settles once it says it is taking jobs (or rejects if it exits). */
export function startAgentmdWorker(args, { cwd, env }) {
  let child;
  const done = runAgentmd(["worker", ...args], { cwd, env, onStart: (c) => (child = c) });
  const ready = new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      if (err.includes("at once")) resolve();
    });
    done.then((r) => reject(new Error(`worker exited: ${r.stderr}`)));
  });
  return { child, done, ready };
}
