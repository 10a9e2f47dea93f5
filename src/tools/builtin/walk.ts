import path from "node:path";
import type { ToolFs } from "./fs.js";
import { type IgnoreRules, isIgnored, rulesAbove, rulesOf } from "./gitignore.js";

export const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);
export const MAX_WALK_ENTRIES = 200_000;

/**
 * Every file below `root`, depth first in name order, skipping `.git` and `node_modules` and not
 * following symlinked folders (so no loop), and keeping only the files the call may touch (a file
 * the allow-lists deny, or a symlink leading where they deny, is left out). What `.gitignore` files
 * exclude is left out too, as ripgrep leaves it out (the root's folders' up to the repository's
 * top, and each folder's own). Stops early when the signal aborts or after MAX_WALK_ENTRIES
 * entries; `truncated` says so.
 */
export async function walkFiles(
  fs: ToolFs,
  root: string,
  signal: AbortSignal,
  mayAccess: (file: string) => boolean = () => true,
): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let seen = 0;
  // A folder named explicitly is searched even when ignored (as ripgrep does): then its own rules only.
  const above = await rulesAbove(fs, root);
  const stack = [{ dir: root, rules: isIgnored(above, root, true) ? [] : above }];
  while (stack.length > 0) {
    if (signal.aborted) return { files, truncated: true };
    const { dir, rules: above } = stack.pop() as { dir: string; rules: IgnoreRules[] };
    const own = await rulesOf(fs, dir);
    const rules = own ? [...above, own] : above;
    let entries: Awaited<ReturnType<ToolFs["readdir"]>>;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const e of entries) {
      if (++seen > MAX_WALK_ENTRIES) return { files, truncated: true };
      const full = path.join(dir, e.name);
      if (isIgnored(rules, full, e.isDirectory())) continue;
      if (e.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(e.name)) stack.push({ dir: full, rules });
      } else if ((e.isFile() || e.isSymbolicLink()) && mayAccess(full)) {
        files.push(full);
      }
    }
  }
  files.sort();
  return { files, truncated: false };
}

/** A relative glob that stays inside its folder; otherwise why not. */
export function checkRelativeGlob(glob: string, what: string): string | undefined {
  if (path.posix.isAbsolute(glob))
    return `${what} '${glob}' is absolute; give it relative to 'path' and put the folder in 'path'`;
  const normal = path.posix.normalize(glob);
  if (normal === ".." || normal.startsWith("../"))
    return `${what} '${glob}' climbs out of 'path' with '..'; put the folder in 'path' instead`;
  return undefined;
}

/** How a path is shown to the model: relative to the working folder when inside it. */
export function display(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel === "" ? "." : rel.startsWith("..") ? file : rel;
}
