// bench/soak: 1,000 short turns through one runner (each a run of one tool call and one answer,
// transcripts written), the process's RSS (after a full GC) every 100 turns. A leak shows as growth
// that does not level off; reported as the mean growth per 100 turns after a warm-up of 200.
// Target: under 2 MB per 100 turns.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt } from "./support.js";

const TURNS = 1000;
const { startFakeAnthropic } = await import("../dist-bench/test/support/fake-anthropic.js");
const { createRunner } = await import("../dist/invocation/runner.js");

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-soak-"));
writeFileSync(path.join(dir, "agent.md"), "---\nallowed-tools: Read\n---\nYou read.\n");
writeFileSync(path.join(dir, "a.txt"), "alpha\n");
const steps = [];
for (let i = 0; i < TURNS; i++) {
  steps.push({
    kind: "message",
    content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }],
  });
  steps.push({ kind: "message", content: [{ type: "text", text: `answer ${i}` }] });
}
const server = await startFakeAnthropic(steps);
const runner = createRunner({ projectDir: dir, env: {}, model: { apiKey: "soak", baseURL: server.url } });
const heap = [];
const rss = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  heap.push(m.heapUsed / 1e6);
  return m.rss / 1e6;
};
const samples = [rss()];
const t = performance.now();
for (let i = 1; i <= TURNS; i++) {
  const h = runner.run(`turn ${i}`);
  for await (const _ of h) {
    // every event is read, as the CLI reads them
  }
  const r = await h.result();
  if (r.outcome !== "done") throw new Error(`turn ${i}: ${r.outcome} ${r.message ?? ""}`);
  // The fake server keeps every request it saw; that is the bench's memory, not agentmd's.
  server.requests.length = 0;
  if (i % 100 === 0) samples.push(rss());
}
const ms = performance.now() - t;
await server.close();
await runner.close?.();
rmSync(dir, { recursive: true, force: true });

const growth = (xs) => (xs[xs.length - 1] - xs[2]) / (xs.length - 3);
const perHundred = growth(samples);
const heapPerHundred = growth(heap);
console.log(`bench/soak — ${TURNS} runs of one tool call and one answer, one runner, transcripts on`);
console.log(`  RSS every 100: ${samples.map((s) => fmt(s, 0)).join(" → ")} MB`);
console.log(`  heap used every 100: ${heap.map((s) => fmt(s, 1)).join(" → ")} MB`);
console.log(
  `  growth after the first 200: RSS ${fmt(perHundred, 2)} MB, heap ${fmt(heapPerHundred, 2)} MB per 100 turns; ${fmt(ms / TURNS, 2)} ms per turn`,
);
console.log(
  `RESULT soak rss_growth_mb_per_100=${fmt(perHundred, 2)} target<2.00 heap_growth_mb_per_100=${fmt(heapPerHundred, 2)} ms_per_turn=${fmt(ms / TURNS, 2)}`,
);
