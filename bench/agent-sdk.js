// bench/agent-sdk: the same Agent SDK program (bench/contenders/sdk-query.mjs: query() with
// allowedTools Bash) on Claude Code and on agentmd, only pathToClaudeCodeExecutable changed; whole
// processes against the fake server, N Bash turns (`true`) then an answer. Alternating runs, medians.
// Claude Code is the SDK's native package (@anthropic-ai/claude-agent-sdk-linux-x64 etc.), which the
// project's install maps to an empty stub: set CLAUDE_CODE_BIN, or BENCH_INSTALL_CLAUDE=1 to install
// it into bench/.cache (about 400 MB). Without it only agentmd is measured.
// Targets: agentmd <= 0.8x Claude Code's time for the first answer, <= 0.4x for 50 Bash turns.
// The machine's load average is printed before and after: a ratio taken under load says less.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fmt, median, REPO_ROOT } from "./support.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const VERSION = "0.3.332";
const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");

function claudeCode() {
  if (process.env.CLAUDE_CODE_BIN) return process.env.CLAUDE_CODE_BIN;
  const platform = `${process.platform}-${process.arch}`;
  const cache = path.join(REPO_ROOT, "bench/.cache/claude-code");
  const bin = path.join(cache, `node_modules/@anthropic-ai/claude-agent-sdk-${platform}/claude`);
  if (!existsSync(bin) && process.env.BENCH_INSTALL_CLAUDE === "1") {
    mkdirSync(cache, { recursive: true });
    spawnSync(
      "npm",
      [
        "install",
        "--no-save",
        "--ignore-scripts",
        "--prefix",
        cache,
        `@anthropic-ai/claude-agent-sdk-${platform}@${VERSION}`,
      ],
      { stdio: "inherit" },
    );
  }
  return existsSync(bin) ? bin : undefined;
}

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-sdk-"));
writeFileSync(
  path.join(dir, "agent.md"),
  "---\nallowed-tools: Bash\nmaxIterations: 100\n---\nYou run commands.\n",
);

/**
 * Answers by the conversation, not by order, so that a contender's side requests (a title, a quota
 * check) take no step: a request offering Bash gets turn t's call while t < N, then "done".
 */
function steps(turns) {
  const reply = (req) => {
    const offersBash = (req.body.tools ?? []).some((t) => t.name === "Bash");
    const t = (req.body.messages ?? []).filter((m) => m.role === "assistant").length;
    if (!offersBash) return { kind: "message", content: [{ type: "text", text: "ok" }] };
    if (t < turns)
      return {
        kind: "message",
        content: [{ type: "tool_use", name: "Bash", input: { command: "true" }, id: `t${t}` }],
      };
    return { kind: "message", content: [{ type: "text", text: "done" }] };
  };
  return Array.from({ length: turns * 3 + 20 }, () => reply);
}

function runOnce(exe, url) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "bench/contenders/sdk-query.mjs"), "go"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        ANTHROPIC_API_KEY: "bench",
        ANTHROPIC_BASE_URL: url,
        BENCH_EXE: exe,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const ms = performance.now() - t;
      if (code !== 0 || !out.includes("done")) reject(new Error(`${exe} failed (${code}): ${out}\n${err}`));
      else resolve(ms);
    });
  });
}

async function measure(contenders, turns) {
  const times = Object.fromEntries(Object.keys(contenders).map((n) => [n, []]));
  for (let r = 0; r < ROUNDS + 1; r++) {
    const names = Object.keys(contenders);
    for (const name of r % 2 ? names.reverse() : names) {
      const server = await startFakeAnthropic(steps(turns));
      const ms = await runOnce(contenders[name], server.url);
      await server.close();
      if (r > 0) times[name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([n, xs]) => [n, median(xs)]));
}

const claude = claudeCode();
// BENCH_AGENTMD_BASE: another build's bin/agentmd.js (main's, say), measured in the same runs.
const base = process.env.BENCH_AGENTMD_BASE;
const contenders = {
  ...(claude && { "claude-code": claude }),
  ...(base && { "agentmd@base": base }),
  agentmd: path.join(REPO_ROOT, "bin/agentmd.js"),
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(
  `bench/agent-sdk — one query() program, whole processes, median of ${ROUNDS} alternating runs each (load average ${load()})`,
);
if (!claude) console.log("  (Claude Code's binary not found: set CLAUDE_CODE_BIN or BENCH_INSTALL_CLAUDE=1)");
const out = {};
for (const [label, turns] of [
  ["first answer", 0],
  ["50 Bash turns", 50],
]) {
  const m = await measure(contenders, turns);
  out[label] = m;
  const cc = m["claude-code"];
  const was = m["agentmd@base"];
  console.log(
    `  ${label.padEnd(14)} ${cc ? `claude-code ${fmt(cc, 0).padStart(6)} ms   ` : ""}${was ? `agentmd@base ${fmt(was, 0).padStart(6)} ms${cc ? ` ${fmt(was / cc)}x` : ""}   ` : ""}agentmd ${fmt(m.agentmd, 0).padStart(6)} ms${cc ? `   ${fmt(m.agentmd / cc)}x` : ""}`,
  );
}
rmSync(dir, { recursive: true, force: true });
console.log(`  load average after: ${load()}`);
if (claude) {
  const ratio = (label) => fmt(out[label].agentmd / out[label]["claude-code"]);
  console.log(
    `RESULT agent-sdk first_answer_ratio=${ratio("first answer")} target<=0.8 n50_ratio=${ratio("50 Bash turns")} target<=0.4`,
  );
} else
  console.log(
    `RESULT agent-sdk first_answer_ms=${fmt(out["first answer"].agentmd, 0)} n50_ms=${fmt(out["50 Bash turns"].agentmd, 0)}`,
  );
