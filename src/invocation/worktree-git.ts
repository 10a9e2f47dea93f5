import { lstatSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";
import { runProcess } from "../shared/run-process.js";

/**
 * Settings on every git command agentmd runs itself for a worktree (`-c` wins over every config
 * file): whatever a config says — the repository's, one the model wrote with an allowed `git
 * config`, or one it pointed a worktree at — git runs no program of it. No fsmonitor hook, no
 * hooks (`worktree add` runs post-checkout, `commit` pre-commit), no pager, editor, ssh, askpass,
 * credential helper, external diff or signing program, and no transport at all.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.editor=false",
  "sequence.editor=false",
  "core.sshCommand=false",
  "core.askPass=false",
  "credential.helper=",
  "diff.external=",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "gpg.program=false",
  "protocol.allow=never",
];

/**
 * A repository git is told where to find, so that nothing in the working tree can redirect it: the
 * `.git` file of a worktree the model could write is never read.
 */
export interface GitAt {
  readonly gitDir: string;
  readonly workTree: string;
}

/** The repository a worktree was made in: its top folder and git folder, as agentmd found them. */
export interface Repo {
  readonly top: string;
  readonly commonDir: string;
  /** Set when it was reached through a caller's worktree: that worktree's git folder. */
  readonly from?: GitAt;
}

export type GitOut =
  | { readonly ok: true; readonly out: string }
  | { readonly ok: false; readonly out: string };

/**
 * git, as agentmd runs it itself: with `SAFE_GIT_CONFIG`, no system config, no prompt, none of the
 * caller's `GIT_*` variables (a `GIT_DIR` would redirect it), and — for a worktree — its git folder
 * and work tree given, never looked up. Contract: never rejects.
 */
export async function git(cwd: string, args: readonly string[], at?: GitAt): Promise<GitOut> {
  const where = at ? [`--git-dir=${at.gitDir}`, `--work-tree=${at.workTree}`] : [];
  const safe = SAFE_GIT_CONFIG.flatMap((c) => ["-c", c]);
  const r = await runProcess("git", [...safe, ...where, ...args], {
    cwd,
    env: gitEnv(process.env),
    maxChars: 1_000_000,
    timeoutMs: 60_000,
  });
  // Only the last line's end is cut: a listed path may begin or end with a space.
  const out = r.stdout.text().replace(/\n$/, "");
  if (r.truncated) return { ok: false, out: "git printed more than agentmd reads" };
  return r.kind === "exited" && r.code === 0
    ? { ok: true, out }
    : { ok: false, out: r.stderr.text().trim() || out || r.kind };
}

/** The environment agentmd's own git runs in. Pure. */
export function gitEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const kept = Object.entries(env).filter(([k]) => !k.startsWith("GIT_"));
  return { ...Object.fromEntries(kept), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
}

/**
 * The git folder a worktree's `.git` file names, when it is one git made for it: a regular file
 * `gitdir: X` whose X is a folder inside `commonDir/worktrees/`. Anything else (a symlink, a
 * folder, a target elsewhere) is undefined, with why. Reads files; runs nothing. Never throws.
 */
export function worktreeGitDir(root: string, commonDir: string): { gitDir?: string; why?: string } {
  const file = path.join(root, ".git");
  try {
    if (!lstatSync(file).isFile()) return { why: `${file} is not the file git wrote` };
    const m = /^gitdir: (.+)\n?$/.exec(readFileSync(file, "utf8"));
    if (!m?.[1]) return { why: `${file} does not name a git folder` };
    const target = realpathSync(path.resolve(root, m[1]));
    const worktrees = path.join(realpathSync(commonDir), "worktrees");
    if (!isInside(target, worktrees) || target === worktrees)
      return { why: `${file} points at ${target}, outside ${worktrees}` };
    return { gitDir: target };
  } catch (e) {
    return { why: `${file} cannot be read (${(e as Error).message})` };
  }
}

/** Whether the worktree's `.git` file still names `gitDir` (the folder it named when it was made). */
export function stillPointsAt(root: string, commonDir: string, gitDir: string): string | undefined {
  const now = worktreeGitDir(root, commonDir);
  if (now.gitDir === gitDir) return undefined;
  return now.why ?? `${path.join(root, ".git")} points at ${now.gitDir}, not at ${gitDir}`;
}
