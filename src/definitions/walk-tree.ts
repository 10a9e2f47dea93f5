import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";

/** What a walk met and did not follow; the walk goes on without it. */
export type WalkProblem = "unreadable-folder" | "dangling-symlink" | "symlink-loop";

export interface WalkTreeOptions {
  /** Symlinked folders are followed only when they lead inside this folder (default: `dir`). */
  readonly bound?: string;
  /** Which entries that are not folders to give, by name (default: all). */
  readonly keep?: (name: string) => boolean;
  readonly onProblem?: (file: string, problem: WalkProblem, message: string) => void;
}

/** Folders no walk enters: their content is never a project's input. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", ".git"]);
const MAX_DEPTH = 40;

/**
 * Every entry below `dir` that is not a folder (a file, a FIFO, a symlink that leads nowhere), as
 * its path under `dir`, each folder's entries in name order. A symlinked folder is followed only
 * when it leads inside `bound`, never to a folder that holds `dir` (a loop, or the whole disk), and
 * never twice. Folders that cannot be read and symlinks that lead nowhere (unless kept) are told to
 * `onProblem`, not skipped in silence. Nothing is opened: what an entry is, its reader says.
 * Contract: never throws; a `dir` that is not a folder has no entries.
 */
export function walkTree(dir: string, options: WalkTreeOptions = {}): string[] {
  const out: string[] = [];
  const keep = options.keep ?? (() => true);
  const report = options.onProblem ?? (() => {});
  const root = isFolder(dir) ? realPath(dir) : null;
  if (root === null) return out;
  const bound = options.bound ?? dir;
  const limit = realPath(bound) ?? bound;
  const visited = new Set<string>();
  const walk = (current: string, real: string, depth: number) => {
    if (visited.has(real) || depth > MAX_DEPTH) return;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      report(current, "unreadable-folder", `cannot read this folder: ${code}`);
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(full, path.join(real, entry.name), depth + 1);
      } else if (entry.isSymbolicLink()) {
        const target = realPath(full);
        if (target === null) {
          if (keep(entry.name)) out.push(full);
          else report(full, "dangling-symlink", "a symlink that leads nowhere; not followed");
        } else if (isFolder(target)) {
          const why = linkProblem(target, root, limit);
          if (why)
            report(full, "symlink-loop", `this folder is a symlink to ${target}, ${why}; not followed`);
          else if (!SKIPPED_FOLDERS.has(entry.name)) walk(full, target, depth + 1);
        } else if (keep(entry.name)) out.push(full);
      } else if (keep(entry.name)) out.push(full);
    }
  };
  walk(dir, root, 0);
  return out;
}

/** Why a symlinked folder is not followed, if it is not. */
function linkProblem(target: string, walkRoot: string, limit: string): string | undefined {
  if (isInside(walkRoot, target)) return "which holds this folder (a loop)";
  if (!isInside(target, limit)) return "outside the project";
  return undefined;
}

function realPath(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
