import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  symlinkSync,
} from "node:fs";
import path from "node:path";
import type { Workdir } from "./run-types.js";
import { git, type Repo } from "./worktree-git.js";

/** More files than this in a working folder HEAD lacks: the worktree is refused, not filled. */
export const MAX_BROUGHT_FILES = 10_000;
const IDENTITY = ["-c", "user.name=agentmd", "-c", "user.email=agentmd@localhost"];

/**
 * A worktree holds HEAD; a run's working folder that HEAD lacks (a new project folder, not yet
 * committed) is brought in as it is on disk — the files git would see (tracked or untracked, not
 * ignored) of the first folder on its path that HEAD lacks — and committed on the worktree's
 * branch, so that what the subagent changes is told apart from what it was given. `base`: the
 * commit the run starts from. When the folder cannot be brought (git ignores it, it is too big,
 * a copy or the commit fails), why. Contract: never rejects.
 */
export async function bringWorkingFolder(
  repo: Repo,
  tree: Workdir,
  head: string,
): Promise<{ ok: true; base: string } | { ok: false; why: string }> {
  if (existsSync(tree.cwd)) return { ok: true, base: head };
  const rel = path.relative(tree.root, tree.cwd);
  const missing = firstMissing(tree.root, rel);
  const said = `its working folder ${rel} is not in the repository's HEAD`;
  const listed = await git(
    repo.top,
    ["-c", "core.quotePath=false", "ls-files", "--cached", "--others", "--exclude-standard", "--", missing],
    repo.from,
  );
  if (!listed.ok) return { ok: false, why: `${said}, and git could not list it (${listed.out})` };
  const files = listed.out
    .split("\n")
    .filter((f) => f !== "")
    .map(unquoted);
  if (files.length > MAX_BROUGHT_FILES)
    return {
      ok: false,
      why: `${said}, and it holds more than ${MAX_BROUGHT_FILES} files to copy; commit it first`,
    };
  const copied = copyInto(repo.top, tree.root, files);
  if (copied !== undefined) return { ok: false, why: `${said}, and it could not be copied (${copied})` };
  if (!existsSync(tree.cwd))
    return { ok: false, why: `${said}, and git ignores it (or it holds no file); commit it first` };
  return commitBrought(tree, missing, said);
}

const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 };

/** A path as git lists it: C-quoted (`"a\tb"`, octal bytes) when it holds such characters. Pure. */
export function unquoted(listed: string): string {
  if (!listed.startsWith('"') || !listed.endsWith('"')) return listed;
  const parts: Buffer[] = [];
  for (const m of listed.slice(1, -1).matchAll(/\\([0-7]{3}|[\s\S])|[^\\]+/gu)) {
    const escaped = m[1];
    if (escaped === undefined) parts.push(Buffer.from(m[0], "utf8"));
    else if (/^[0-7]{3}$/.test(escaped)) parts.push(Buffer.of(Number.parseInt(escaped, 8)));
    else parts.push(Buffer.of(C_ESCAPES[escaped] ?? escaped.charCodeAt(0)));
  }
  return Buffer.concat(parts).toString("utf8");
}

/** The first folder along `rel` (from `root`) that does not exist. */
function firstMissing(root: string, rel: string): string {
  const parts = rel.split(path.sep);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(path.sep);
    if (!existsSync(path.join(root, prefix))) return prefix;
  }
  return rel;
}

/** Copies `files` (relative to `from`) into `to`, keeping modes and symlinks; the error, if any. */
function copyInto(from: string, to: string, files: readonly string[]): string | undefined {
  try {
    for (const file of files) {
      const source = path.join(from, file);
      const target = path.join(to, file);
      if (!existsSync(source) && !isLink(source)) continue;
      const stat = lstatSync(source);
      if (stat.isDirectory()) continue;
      mkdirSync(path.dirname(target), { recursive: true });
      if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
      else {
        copyFileSync(source, target);
        chmodSync(target, stat.mode & 0o777);
      }
    }
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

async function commitBrought(
  tree: Workdir,
  missing: string,
  said: string,
): Promise<{ ok: true; base: string } | { ok: false; why: string }> {
  const at = { gitDir: tree.gitDir, workTree: tree.root };
  const message = `agentmd: ${missing} as it was on disk (not in HEAD)`;
  const added = await git(tree.root, ["add", "-A", "--", missing], at);
  const committed = added.ok
    ? await git(tree.root, [...IDENTITY, "commit", "-q", "--no-verify", "-m", message], at)
    : added;
  const base = committed.ok ? await git(tree.root, ["rev-parse", "HEAD"], at) : committed;
  return base.ok
    ? { ok: true, base: base.out }
    : { ok: false, why: `${said}, and its copy could not be committed (${base.out})` };
}
