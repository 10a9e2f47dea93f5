import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import { walkTree } from "./walk-tree.js";

/**
 * The version a plugin without one (neither `plugin.json` nor its marketplace entry says) is
 * installed as, as Claude Code names it: the first 12 characters of the commit its git repository
 * is at. A folder that is in no repository gets the first 12 hex digits of a hash of its files
 * instead — never `unknown`, so two different unversioned copies never share a cache folder.
 * git's files are read, never run (a repository's config can make a `git` command run a program).
 */

const SHORT = 12;

/**
 * The version of the plugin folder `root`: the HEAD commit of the repository holding it (looked for
 * from `root` up to `top`, the marketplace's folder, and no higher), else a hash of its files.
 * Contract: never throws.
 */
export function folderVersion(root: string, top: string = root): string {
  const stop = isInside(root, top) ? top : root;
  for (let dir = root; ; dir = path.dirname(dir)) {
    const sha = headCommit(dir);
    if (sha) return sha.slice(0, SHORT);
    if (dir === stop || path.dirname(dir) === dir) break;
  }
  return contentHash(root).slice(0, SHORT);
}

/** The commit `dir/.git` (a folder, or a `gitdir:` file) is at, when it can be read. */
function headCommit(dir: string): string | undefined {
  const gitDir = gitDirOf(path.join(dir, ".git"));
  if (!gitDir) return undefined;
  const head = read(path.join(gitDir, "HEAD"))?.trim();
  if (!head) return undefined;
  if (/^[0-9a-f]{40,64}$/.test(head)) return head;
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.split("/").includes("..")) return undefined;
  const common = read(path.join(gitDir, "commondir"))?.trim();
  const dirs = [gitDir, ...(common ? [path.resolve(gitDir, common)] : [])];
  for (const d of dirs) {
    const loose = read(path.join(d, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
    const packed = read(path.join(d, "packed-refs"))
      ?.split("\n")
      .map((line) => line.trim().split(" "))
      .find(([sha, name]) => name === ref && /^[0-9a-f]{40,64}$/.test(sha ?? ""));
    if (packed?.[0]) return packed[0];
  }
  return undefined;
}

function gitDirOf(dotGit: string): string | undefined {
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
  } catch {
    return undefined;
  }
  const target = /^gitdir: (.+)$/m.exec(read(dotGit) ?? "")?.[1]?.trim();
  return target ? path.resolve(path.dirname(dotGit), target) : undefined;
}

/** sha256 over each file's path under `root` and its content, in name order (`.git` left out). */
function contentHash(root: string): string {
  const hash = nodeCrypto().createHash("sha256");
  for (const file of walkTree(root)) {
    hash.update(`${path.relative(root, file)}\0`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update("(unreadable)");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
