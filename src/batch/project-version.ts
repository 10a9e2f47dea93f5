import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { projectPlugins } from "../definitions/plugins.js";
import { projectInputs } from "../definitions/project-inputs.js";
import { isInside } from "../shared/is-inside.js";
import { projectInventory } from "../trust/inventory/inventory.js";

/**
 * A content hash of a project's inputs (`sha256:` and 16 hex digits): the digest of exactly the
 * files `projectInputs` lists in the project folder (agent.md, the definition folders, `tools/`,
 * `.claude/settings*.json`, `.mcp.json`, and the memory files down to `cwd`) and every file of code
 * in the project's inventory (a hook's script and what it sources, an MCP server's program and what
 * it imports, package.json for a package script, a makefile), the same on every
 * machine whose folder holds the same files, whatever their times or the folder's place. A job
 * names the version it was made for, and a worker whose project differs refuses it rather than run
 * the job with other prompts, tools, servers or another allow-list. Line endings are read as `\n`,
 * so a checkout with CRLF is the same version.
 *
 * The user's own files (`~/.claude`: settings, CLAUDE.md, definitions) are left out on purpose:
 * they belong to the machine, not the project, and differ between the enqueuer and every worker;
 * counting them would refuse every job queued from another machine. Rules a batch relies on belong
 * in the project's `.claude/settings.json`, which counts.
 */
export function projectVersion(projectDir: string, cwd?: string): string {
  const root = path.resolve(projectDir);
  // The plugins the project's own settings enable from a marketplace inside it count; the user's do not.
  const plugins = projectPlugins(root).plugins.map((p) => p.root);
  const inputs = projectInputs(root, { cwd: path.resolve(root, cwd ?? "."), plugins }).filter(
    (i) => i.scope === "project",
  );
  // The inventory's files inside the project: git's own files and the user's are no part of it.
  const inventory = projectInventory(root, undefined);
  const code = inventory.files
    .filter((f) => isInside(f.file, inventory.dir))
    .map((f) => path.join(root, path.relative(inventory.dir, f.file)));
  const files = [...new Set([...inputs.map((i) => i.file), ...code])];
  const entries = files
    .filter(isFile)
    .map((f) => [path.relative(root, f).split(path.sep).join("/"), f] as const);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  for (const [rel, file] of entries) {
    const content = readFileSync(file).toString("latin1").replace(/\r\n/g, "\n");
    hash.update(`${rel}\0${content.length}\0`).update(content, "latin1");
  }
  return `sha256:${hash.digest("hex").slice(0, 16)}`;
}

/**
 * The versions of one project by working folder (`cwd` relative to the project, as a batch item
 * gives it), each worked out once: a worker or an enqueuer asks for the same few again and again.
 */
export function projectVersions(projectDir: string): (cwd?: string) => string {
  const root = path.resolve(projectDir);
  const known = new Map<string, string>();
  return (cwd) => {
    const at = path.resolve(root, cwd ?? ".");
    let v = known.get(at);
    if (v === undefined) {
      v = projectVersion(root, at);
      known.set(at, v);
    }
    return v;
  };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
