// bench/startup: what a user pays before agentmd does anything, as whole processes started through
// the `agentmd` launcher (bin/agentmd, a shell script that execs node). Each command is timed against
// the floor of the same Node, `node -e 0`, in interleaved rounds (machine noise hits all alike);
// medians and ratios. Targets: `--version` <= 1.5x, `check` of a one-file project <= 2.5x, with the
// caches a user's earlier runs left (Node's compile cache, or on Node 20 check's code cache); the
// first run's figure, with no cache yet, is printed beside it.
// Runs on this Node, and on Node 22 and 24 when the npm package `node` provides them
// (`npx -y node@22`; BENCH_NODE_VERSIONS="22 24" by default, "" for this Node alone).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, interleave, REPO_ROOT } from "./support.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const OTHER_VERSIONS = (process.env.BENCH_NODE_VERSIONS ?? "22 24").split(/\s+/).filter(Boolean);
const LAUNCHER = path.join(REPO_ROOT, "bin/agentmd");
const TARGETS = { version: 1.5, check: 2.5 };

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-startup-"));
const project = path.join(dir, "project");
mkdirSync(project);
writeFileSync(
  path.join(project, "agent.md"),
  "---\nname: helper\ndescription: Answers questions about this folder.\nallowed-tools: Read, Grep, Bash(git status:*)\n---\nYou answer questions about the files here.\n",
);

/** The node binaries to measure: this one, then each other major the npm package `node` provides. */
function nodes() {
  const out = [{ label: `Node ${process.versions.node}`, bin: process.execPath }];
  for (const major of OTHER_VERSIONS) {
    const r = spawnSync("npx", ["-y", `node@${major}`, "-p", "process.execPath"], {
      encoding: "utf8",
      cwd: dir,
    });
    const bin = r.stdout?.trim();
    if (r.status === 0 && bin) {
      const version = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
      out.push({ label: `Node ${version}`, bin });
    } else console.log(`  (Node ${major} not measured: npx -y node@${major} failed)`);
  }
  return out;
}

function measure(nodeBin) {
  const env = {
    PATH: `${path.dirname(nodeBin)}:${process.env.PATH}`,
    // The compile cache where agentmd keeps it for a user (under HOME), as a user's runs have it.
    HOME: dir,
  };
  const run =
    (file, args, cwd = dir, envOf = () => env) =>
    () => {
      const r = spawnSync(file, args, { cwd, env: envOf(), stdio: ["ignore", "pipe", "pipe"] });
      if (r.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    };
  // A user's first check after installing or upgrading: no cache yet (a home folder of its own).
  const coldHome = () => ({ ...env, HOME: mkdtempSync(path.join(dir, "home-")) });
  return interleave(
    {
      floor: run(nodeBin, ["-e", "0"]),
      version: run(LAUNCHER, ["--version"]),
      help: run(LAUNCHER, ["--help"]),
      check: run(LAUNCHER, ["check"], project),
      cold: run(LAUNCHER, ["check"], project, coldHome),
    },
    { warmup: 3, rounds: ROUNDS },
  );
}

console.log(
  `bench/startup — the agentmd launcher against \`node -e 0\`, median of ${ROUNDS} interleaved rounds`,
);
const results = [];
for (const { label, bin } of nodes()) {
  const m = measure(bin);
  const ratio = (k) => m[k] / m.floor;
  console.log(
    `  ${label.padEnd(13)} node -e 0 ${fmt(m.floor, 0).padStart(4)} ms   --version ${fmt(m.version, 0).padStart(4)} ms ${fmt(ratio("version"))}x   --help ${fmt(m.help, 0).padStart(4)} ms ${fmt(ratio("help"))}x   check ${fmt(m.check, 0).padStart(4)} ms ${fmt(ratio("check"))}x   (check's first run, no cache yet: ${fmt(m.cold, 0)} ms ${fmt(ratio("cold"))}x)`,
  );
  results.push({
    label,
    version: ratio("version"),
    help: ratio("help"),
    check: ratio("check"),
    cold: ratio("cold"),
  });
}
rmSync(dir, { recursive: true, force: true });
const worst = (k) => Math.max(...results.map((r) => r[k]));
const missed = Object.entries(TARGETS).filter(([k, t]) => worst(k) > t);
console.log(
  `RESULT startup version_ratio=${fmt(worst("version"))} target<=${TARGETS.version} help_ratio=${fmt(worst("help"))} check_ratio=${fmt(worst("check"))} target<=${TARGETS.check} check_cold_ratio=${fmt(worst("cold"))} nodes=${results.map((r) => r.label.replace("Node ", "")).join(",")}${missed.length ? ` missed=${missed.map(([k]) => k).join(",")}` : ""}`,
);
