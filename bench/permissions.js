// bench/permissions: decisions per second on a 50-entry list of mixed patterns (compiled once,
// reused), as a ratio to a floor measured in the same run: a Map lookup plus one precompiled
// picomatch call per decision. Also the time to intersect two 50-entry lists.
// Targets: at most 3x the floor, and at least 1,000,000 decisions per second.
import picomatch from "picomatch";
import { builtinCatalog } from "../dist/invocation/tool-catalog.js";
import { compileList, decide, intersect, loadShellParser } from "../dist/permissions/index.js";
import { fmt, interleave } from "./support.js";

const at = { file: "agent.md", line: 1, column: 1 };
const entry = (name, pattern) => ({ name, pattern, raw: pattern ? `${name}(${pattern})` : name, at });

// Real git subcommands: under a deny rule on Bash, one git does not know may be an alias, and is
// refused without further judgement.
const PROGRAMS = ["git status", "git log", "npm run", "make"];
const simpleCommand = (i, tail = "") => `${PROGRAMS[(i % 12) % 4]} a${i % 12} --short${tail}`;

function fiftyEntries(seed) {
  const out = [];
  for (let i = 0; i < 12; i++) out.push(entry("Bash", `${PROGRAMS[i % 4]} ${seed}${i}:*`));
  for (let i = 0; i < 14; i++)
    out.push(entry("Read", `/proj/${["src", "test", "docs", "lib"][i % 4]}${seed}${i}/**`));
  for (let i = 0; i < 8; i++) out.push(entry("Write", `/proj/out${seed}${i}/*.json`));
  for (let i = 0; i < 6; i++) out.push(entry("Task", `agent-${seed}${i}`));
  for (let i = 0; i < 5; i++) out.push(entry(`mcp__srv${i}__tool${seed}`));
  out.push(
    entry("Grep"),
    entry("Glob"),
    entry("Skill", "pdf-*"),
    entry("WebFetch", "domain:example.com"),
    entry("Edit", "/proj/src/**"),
  );
  return out;
}

const SPECS = builtinCatalog().specs;
const ctx = { specs: SPECS, projectDir: "/proj", home: "/home/u" };
const listA = compileList(fiftyEntries("a"), [entry("Bash", "git push:*")], ctx);
const listB = compileList(fiftyEntries("a").slice(10), undefined, ctx);

const CALLS = [];
for (let i = 0; i < 1000; i++) {
  const k = i % 4;
  if (k === 0) CALLS.push({ tool: "Read", input: { file_path: `/proj/src${"a"}${i % 14}/file${i}.ts` } });
  else if (k === 1) CALLS.push({ tool: "Read", input: { file_path: `/etc/secret${i}` } });
  else if (k === 2) CALLS.push({ tool: "Bash", input: { command: simpleCommand(i) } });
  else CALLS.push({ tool: "Write", input: { file_path: `/proj/outa${i % 8}/r${i}.json` } });
}
// A run judges command lines with the bash parser it was handed.
const decideCtx = { specs: SPECS, cwd: "/proj", shell: await loadShellParser() };

// The floor: the least any engine must do per call — find the tool's matcher, run it once.
const floorMatchers = new Map([
  ["Read", picomatch("/proj/**", { dot: true })],
  ["Write", picomatch("/proj/**", { dot: true })],
  ["Bash", picomatch("git status*", { dot: true })],
]);
const SUBJECT = { Read: "file_path", Write: "file_path", Bash: "command" };

// Simple commands alone (the common case: no parser), and compound lines that the parser reads.
const SIMPLE = Array.from({ length: 1000 }, (_, i) => ({
  tool: "Bash",
  input: { command: simpleCommand(i) },
}));
const COMPOUND = Array.from({ length: 1000 }, (_, i) => ({
  tool: "Bash",
  input: { command: `${simpleCommand(i)} | ${simpleCommand(i + 1)} && echo "done ${i}"` },
}));

const N = 200_000;
let sink = 0;
const times = interleave(
  {
    floor: () => {
      for (let i = 0; i < N; i++) {
        const c = CALLS[i % 1000];
        if (floorMatchers.get(c.tool)(c.input[SUBJECT[c.tool]])) sink++;
      }
    },
    decide: () => {
      for (let i = 0; i < N; i++) if (decide(listA, CALLS[i % 1000], decideCtx).kind === "allowed") sink++;
    },
  },
  { warmup: 3, rounds: 11 },
);

const simple = interleave(
  {
    simple: () => {
      for (let i = 0; i < N; i++) if (decide(listA, SIMPLE[i % 1000], decideCtx).kind === "allowed") sink++;
    },
  },
  { warmup: 3, rounds: 11 },
).simple;
// The same, every line new: what a command costs the first time (decisions on a repeated line are
// kept per list).
const FRESH = Array.from({ length: 20_000 }, (_, i) => ({
  tool: "Bash",
  input: { command: simpleCommand(i, ` n${i}`) },
}));
const fresh = interleave(
  {
    fresh: () => {
      for (let i = 0; i < N; i++) if (decide(listA, FRESH[i % 20_000], decideCtx).kind === "allowed") sink++;
    },
  },
  { warmup: 3, rounds: 11 },
).fresh;
const M = 20_000;
const compound = interleave(
  {
    compound: () => {
      for (let i = 0; i < M; i++) if (decide(listA, COMPOUND[i % 1000], decideCtx).kind !== "allowed") sink++;
    },
  },
  { warmup: 2, rounds: 7 },
).compound;

const intersectTimes = [];
for (let r = 0; r < 50; r++) {
  const t = performance.now();
  intersect(listA, listB);
  intersectTimes.push(performance.now() - t);
}
intersectTimes.sort((a, b) => a - b);

const perSecond = N / (times.decide / 1000);
console.log(`bench/permissions — 50-entry list, ${N} decisions per round (${sink > 0 ? "ok" : "?"})`);
console.log(
  `  floor (Map + picomatch)  ${fmt((times.floor / N) * 1e6, 0).padStart(5)} ns/call  ${fmt(N / (times.floor / 1000) / 1e6)} M/s`,
);
console.log(
  `  decide                   ${fmt((times.decide / N) * 1e6, 0).padStart(5)} ns/call  ${fmt(perSecond / 1e6)} M/s  ${fmt(times.decide / times.floor)}x floor`,
);
const simplePerSecond = N / (simple / 1000);
console.log(
  `  decide, simple Bash only ${fmt((simple / N) * 1e6, 0).padStart(5)} ns/call  ${fmt(simplePerSecond / 1e6)} M/s`,
);
console.log(`  decide, simple Bash, each line new ${fmt((fresh / N) * 1e6, 0).padStart(5)} ns/call`);
console.log(
  `  decide, parsed compound  ${fmt((compound / M) * 1e6, 0).padStart(5)} ns/call  (a pipeline and a list of 3 commands, read by the bash parser)`,
);
console.log(`  intersect 50 x 50 entries: ${fmt(intersectTimes[25], 3)} ms (median of 50)`);
console.log(
  `RESULT permissions ratio=${fmt(times.decide / times.floor)} target<=3.00 decisions_per_s=${fmt(perSecond, 0)} target>=1000000 simple_bash_per_s=${fmt(simplePerSecond, 0)} target>=1000000 fresh_bash_ns=${fmt((fresh / N) * 1e6, 0)} compound_us=${fmt((compound / M) * 1e3, 1)} intersect_ms=${fmt(intersectTimes[25], 3)}`,
);
