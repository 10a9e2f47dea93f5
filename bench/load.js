// bench/load: how fast the loader reads a corpus of real definition files, as a ratio to a floor
// measured in the same run: reading the same files and running gray-matter (with its default
// YAML engine) alone. Target: at most 2x the floor; a whole-corpus `agentmd check` under 1 s.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { discoverPaths, loadDefinitionFile, loadPaths, toolNames } from "../dist/definitions/index.js";
import { builtinCatalog } from "../dist/invocation/tool-catalog.js";
import { corpusDir, fmt, interleave, median, REPO_ROOT } from "./support.js";

const dir = corpusDir();
const found = discoverPaths([dir]).found;
const n = found.length;

const names = builtinCatalog().names;
const known = toolNames(names);
const times = interleave({
  floor: () => {
    for (const f of found) {
      const text = readFileSync(f.file, "utf8");
      try {
        matter(text, {});
      } catch {
        // the floor, like the loader, survives a file that does not parse
      }
    }
  },
  loader: () => {
    for (const f of found) loadDefinitionFile(f, { known });
  },
  "loader + discovery": () => {
    loadPaths([dir], { toolNames: names });
  },
});

const cli = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "bin/agentmd.js"), "check", dir], {
    encoding: "utf8",
  });
  cli.push(performance.now() - t);
  if (r.status !== 0 && r.status !== 1) throw new Error(`agentmd check failed: ${r.stderr}`);
}

console.log(`bench/load — ${n} definition files from ${path.relative(process.cwd(), dir) || "."}`);
for (const [name, ms] of Object.entries(times)) {
  console.log(
    `  ${name.padEnd(20)} ${fmt(ms, 1).padStart(8)} ms  ${fmt(n / (ms / 1000), 0).padStart(7)} files/s  ${fmt(ms / times.floor)}x floor`,
  );
}
console.log(`  agentmd check (whole process, median of 5): ${fmt(median(cli), 0)} ms`);
console.log(
  `RESULT load ratio=${fmt(times.loader / times.floor)} target<=2.00 check_ms=${fmt(median(cli), 0)} target<1000`,
);
