import path from "node:path";
import type { Ignore } from "ignore";
import type { ToolFs } from "./fs.js";

/** The `.gitignore` rules of one folder, read with the `ignore` package (git's own semantics). */
export interface IgnoreRules {
  readonly dir: string;
  readonly rules: Ignore;
}

/** The rules of `dir/.gitignore`, or undefined when it has none (or it cannot be read). */
export async function rulesOf(fs: ToolFs, dir: string): Promise<IgnoreRules | undefined> {
  let text: string;
  try {
    text = (await fs.readFile(path.join(dir, ".gitignore"))).toString("utf8");
  } catch {
    return undefined;
  }
  // Loaded with the first .gitignore read: commands that only list the tools never need it.
  const { default: ignore } = await import("ignore");
  return { dir, rules: ignore().add(text) };
}

/**
 * The rules that apply from above a search's root, as ripgrep reads them: each folder's
 * `.gitignore` from the root up to the repository's top (the folder holding `.git`); none when the
 * root is in no repository but its own `.gitignore` files below.
 */
export async function rulesAbove(fs: ToolFs, root: string): Promise<IgnoreRules[]> {
  const found: IgnoreRules[] = [];
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    const rules = await rulesOf(fs, dir);
    if (rules) found.unshift(rules);
    if (await exists(fs, path.join(dir, ".git"))) return found;
    if (path.dirname(dir) === dir) return [];
  }
}

/** Whether any of `rules` ignores `full` (a folder when `isDir`); a later `!pattern` re-includes. */
export function isIgnored(rules: readonly IgnoreRules[], full: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    const rel = path.relative(r.dir, full).split(path.sep).join("/");
    if (rel === "" || rel.startsWith("..")) continue;
    const t = r.rules.test(isDir ? `${rel}/` : rel);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

async function exists(fs: ToolFs, p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}
