// bench/sandbox: what the sandbox adds to one Bash call. The Bash tool runs `true` as it runs a
// model's call (spawn, wait, drain), unsandboxed and inside bubblewrap with a profile compiled from
// a list with a writable folder and a hidden file, in interleaved rounds; the figure is the
// difference of the medians (target: at most 10 ms). A third column runs the sandbox with a network
// (the runner's proxy and the bridge inside), for information.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { builtinCatalog } from "../dist/invocation/tool-catalog.js";
import { compileList } from "../dist/permissions/index.js";
import { probeSandbox } from "../dist/sandbox/probe-sandbox.js";
import { createRunSandbox } from "../dist/sandbox/run-sandbox.js";
import { createBashTool } from "../dist/tools/index.js";
import { createReadRecord } from "../dist/tools/read-record.js";
import { fmt, median } from "./support.js";

const ROUNDS = 40;
const WARMUP = 3;

const support = await probeSandbox(process.env);
if (!support.ok) {
  console.log(`bench/sandbox — skipped: ${support.message}`);
  console.log("RESULT sandbox skipped=1");
  process.exit(0);
}

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-sandbox-"));
mkdirSync(path.join(dir, "out"));
writeFileSync(path.join(dir, ".env"), "SECRET=1\n");
const { specs } = builtinCatalog();
const entry = (raw) => {
  const m = /^(\w+)(?:\((.*)\))?$/.exec(raw);
  return {
    name: m[1],
    ...(m[2] !== undefined && { pattern: m[2] }),
    raw,
    at: { file: "agent.md", line: 1, column: 1 },
  };
};
const listOf = (allow, deny) =>
  compileList(allow.map(entry), deny.map(entry), { specs, projectDir: dir, home: dir });
const plain = listOf(["Bash", "Write(out/**)"], ["Read(.env)"]);
const online = listOf(["Bash", "Write(out/**)", "WebFetch(domain:example.com)"], ["Read(.env)"]);
const sandbox = createRunSandbox({ allowedDomains: [] }, support, { specs, projectDir: dir, cwd: dir });

const bash = createBashTool();
const ctx = (extra) => ({
  cwd: dir,
  signal: new AbortController().signal,
  logger: { debug() {}, warn() {} },
  readRecord: createReadRecord(),
  ...extra,
});
const variants = {
  unsandboxed: () => ctx({}),
  sandboxed: () => ctx({ sandbox: sandbox.forCall(plain) }),
  network: () => ctx({ sandbox: sandbox.forCall(online) }),
};

const times = { unsandboxed: [], sandboxed: [], network: [] };
for (let r = 0; r < WARMUP + ROUNDS; r++) {
  for (const [name, make] of Object.entries(variants)) {
    const t = performance.now();
    const result = await bash.execute({ command: "true" }, make());
    const ms = performance.now() - t;
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    if (r >= WARMUP) times[name].push(ms);
  }
}
// The runner's own share of the overhead: compiling the profile of a call (file system lookups included).
const compileRuns = 2_000;
const t0 = performance.now();
for (let i = 0; i < compileRuns; i++) sandbox.profile(plain);
const compileUs = ((performance.now() - t0) / compileRuns) * 1000;
rmSync(dir, { recursive: true, force: true });

const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const overhead = m.sandboxed - m.unsandboxed;
const network = m.network - m.unsandboxed;
console.log(`bench/sandbox — Bash 'true', median of ${ROUNDS} interleaved rounds`);
console.log(`  unsandboxed                       ${fmt(m.unsandboxed, 1)} ms`);
console.log(`  sandboxed (no network)            ${fmt(m.sandboxed, 1)} ms   +${fmt(overhead, 1)} ms`);
console.log(`  sandboxed, with the domain proxy  ${fmt(m.network, 1)} ms   +${fmt(network, 1)} ms`);
console.log(`  of which compiling the profile    ${fmt(compileUs, 0)} µs a call; the rest is bubblewrap`);
console.log(
  `RESULT sandbox unsandboxed_ms=${fmt(m.unsandboxed, 1)} sandboxed_ms=${fmt(m.sandboxed, 1)} overhead_ms=${fmt(overhead, 1)} network_overhead_ms=${fmt(network, 1)} profile_us=${fmt(compileUs, 0)} target<=10`,
);
