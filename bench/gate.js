// bench/gate: the schema gate's cost per call, as a ratio to calling the compiled ajv validator
// directly in the same run (target: at most 1.5x). Valid input is the common case; the cost of an
// invalid call (building its sentence) is printed beside it for information.
import { createGrepTool, createReadTool } from "../dist/tools/index.js";
import { checkInput, gateValidator } from "../dist/tools/schema-gate.js";
import { fmt, interleave } from "./support.js";

const N = 500_000;
const cases = [
  [
    "Read",
    createReadTool(),
    [{ file_path: "/proj/src/a.ts" }, { file_path: "/proj/b.ts", offset: 10, limit: 50 }],
  ],
  [
    "Grep",
    createGrepTool(),
    [{ pattern: "TODO", path: "/proj", output_mode: "content", "-n": true, "-C": 2 }],
  ],
];

let sink = 0;
const lines = [];
let worst = 0;
for (const [name, tool, inputs] of cases) {
  const validate = gateValidator(tool);
  const times = interleave(
    {
      ajv: () => {
        for (let i = 0; i < N; i++) if (validate(inputs[i % inputs.length])) sink++;
      },
      gate: () => {
        for (let i = 0; i < N; i++) if (checkInput(tool, inputs[i % inputs.length], "enforce").ok) sink++;
      },
    },
    { warmup: 3, rounds: 11 },
  );
  const ratio = times.gate / times.ajv;
  worst = Math.max(worst, ratio);
  lines.push(
    `  ${name.padEnd(5)} ajv ${fmt((times.ajv / N) * 1e6, 0).padStart(4)} ns/call   gate ${fmt((times.gate / N) * 1e6, 0).padStart(4)} ns/call   ${fmt(ratio)}x`,
  );
}
const bad = { file_paht: "/a", limit: 2.5 };
const read = cases[0][1];
const t = performance.now();
for (let i = 0; i < 20_000; i++) if (!checkInput(read, bad, "enforce").ok) sink++;
const badNs = ((performance.now() - t) / 20_000) * 1e6;

console.log(`bench/gate — ${N} valid calls per round (${sink > 0 ? "ok" : "?"})`);
for (const l of lines) console.log(l);
console.log(`  an invalid call, with its sentence: ${fmt(badNs, 0)} ns`);
console.log(`RESULT gate ratio=${fmt(worst)} target<=1.50`);
