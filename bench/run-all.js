// Runs every benchmark in this folder, one process each, so that none warms the JIT for another.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((f) => f.endsWith(".js") && f !== "run-all.js" && f !== "support.js")
  .filter((f) => only.length === 0 || only.includes(path.basename(f, ".js")));
let failed = 0;
for (const s of scripts) {
  const r = spawnSync(process.execPath, ["--expose-gc", path.join(here, s)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
