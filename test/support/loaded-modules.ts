import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "./fixtures.js";

/**
 * The modules a process loaded, from the log test/support/log-imports.mjs writes: a bundle chunk
 * counts as the source modules esbuild wrote into it (its `// path` comments), any other file as
 * its path relative to the repository, and a module of Node's own imported as one by its `node:` name.
 */
export function modulesInLog(log: string): string[] {
  const urls = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  const out = new Set<string>();
  for (const url of urls) {
    // Node's own modules imported as modules (`node:child_process`) count by their name.
    if (url.startsWith("node:")) {
      out.add(url);
      continue;
    }
    const file = path.relative(REPO_ROOT, fileURLToPath(url));
    if (!file.startsWith(`dist${path.sep}bundle${path.sep}`)) {
      out.add(file);
      continue;
    }
    for (const m of readFileSync(fileURLToPath(url), "utf8").matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm))
      out.add(m[1] ?? "");
  }
  return [...out].sort();
}
