import { mkdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Hooks } from "../loop/hooks.js";
import { escapeGlob } from "../permissions/path-pattern.js";
import { compileList, intersect } from "../permissions/permission-list.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import type { RunSpec, Workdir } from "./run-types.js";
import { bringWorkingFolder } from "./worktree-folder.js";
import { type GitAt, git, type Repo, stillPointsAt, worktreeGitDir } from "./worktree-git.js";

/**
 * `isolation: worktree`: a subagent's run works in a temporary git worktree on a new branch, made
 * from the repository's HEAD (plus, in a commit of its own, its working folder as it is on disk
 * when HEAD lacks it). The worktree is its working folder and the only folder its writing tools
 * may write (its list is intersected with one that keeps Edit, and the tools bound by Edit's
 * rules — Write, MultiEdit, NotebookEdit, Bash's redirections — inside it), so the sandbox, whose
 * writable roots come from those rules, writes only there too. Parallel runs each get their own.
 *
 * The worktree is the model's to write, so agentmd takes nothing from it: its own git commands
 * name the git folder they made (never the worktree's `.git` file) with settings that run no
 * program (`worktree-git.ts`), and the run's command hooks run in the project's working folder,
 * so `sh .claude/hooks/guard.sh` is the project's script, never the worktree's copy.
 */
export interface Worktree {
  readonly spec: RunSpec;
  /**
   * After the run, however it ended: removed (with its branch) when nothing changed, else kept and
   * said in a sentence for the caller. Contract: never rejects.
   */
  close(): Promise<string | undefined>;
}

/** Where a worktree is opened: the folder the Task was called in, and the project's own. */
export interface WorktreeAt {
  readonly cwd: string;
  readonly specs: ToolSpecs;
  /** The project's working folder (trusted): where the run's command hooks run. */
  readonly hooksCwd: string;
  /** The caller's own worktree, when it has one: the new one is made from it, by its git folder. */
  readonly parent?: Workdir;
}

/** Opens a worktree for `spec`'s run from `cwd`'s repository, or the sentence that refuses it. */
export async function openWorktree(
  spec: RunSpec,
  at: WorktreeAt,
): Promise<{ ok: true; tree: Worktree } | { ok: false; message: string }> {
  const refused = (why: string) => ({
    ok: false as const,
    message: `${spec.agent} asks for isolation: worktree, and ${why}; it was not started`,
  });
  const from: GitAt | undefined = at.parent && { gitDir: at.parent.gitDir, workTree: at.parent.root };
  const top = await git(at.cwd, ["rev-parse", "--show-toplevel"], from);
  if (!top.ok) return refused(`${at.cwd} is not inside a git repository`);
  const common = await git(top.out, ["rev-parse", "--git-common-dir"], from);
  const head = await git(top.out, ["rev-parse", "--verify", "-q", "HEAD"], from);
  if (!common.ok || !head.ok) return refused("the repository has no commit yet to make a worktree from");
  const repo = { top: top.out, commonDir: path.resolve(top.out, common.out), ...(from && { from }) };
  const id = nodeCrypto().randomBytes(4).toString("hex");
  const parent = path.join(tmpdir(), "agentmd-worktrees");
  mkdirSync(parent, { recursive: true });
  const made = path.join(parent, `${path.basename(top.out)}-${id}`);
  const branch = `agentmd/${spec.agent.replace(/[^A-Za-z0-9._-]+/g, "-")}-${id}`;
  const add = await git(top.out, ["worktree", "add", "-q", "-b", branch, made, head.out], from);
  if (!add.ok) return refused(`git worktree add failed (${add.out})`);
  const root = realpathSync(made);
  const found = worktreeGitDir(root, repo.commonDir);
  const cwd = path.join(root, path.relative(top.out, at.cwd));
  const workdir: Workdir = { root, branch, cwd, gitDir: found.gitDir ?? "", commonDir: repo.commonDir };
  const brought = found.gitDir
    ? await bringWorkingFolder(repo, workdir, head.out)
    : { ok: false as const, why: `git made a worktree agentmd cannot vouch for: ${found.why}` };
  if (!brought.ok) {
    await removeWorktree(repo, workdir);
    return refused(brought.why);
  }
  const list = intersect(spec.list, writableOnlyIn(root, at.specs));
  const hooks = hooksRunIn(spec.hooks, at.hooksCwd);
  return {
    ok: true,
    tree: {
      spec: { ...spec, list, hooks, workdir },
      close: () => closeWorktree(repo, workdir, brought.base),
    },
  };
}

/** Every tool, with Edit (and so every tool Edit's rules bind) allowed only inside `root`. */
export function writableOnlyIn(root: string, specs: ToolSpecs): PermissionList {
  const at = { file: "isolation: worktree", line: 1, column: 1 };
  const pattern = `${escapeGlob(root)}/**`;
  return compileList(
    [
      { name: "*", raw: "*", at },
      { name: "Edit", pattern, raw: `Edit(${root}/**)`, at },
    ],
    undefined,
    { specs, projectDir: root, home: root },
  );
}

/** `hooks` with every command hook that names no folder of its own run in `dir`. Pure. */
export function hooksRunIn(hooks: Hooks, dir: string): Hooks {
  return Object.fromEntries(
    Object.entries(hooks).map(([event, list]) => [
      event,
      (list ?? []).map((h) => ("command" in h && h.cwd === undefined ? { ...h, cwd: dir } : h)),
    ]),
  );
}

async function closeWorktree(repo: Repo, tree: Workdir, base: string): Promise<string | undefined> {
  const moved = stillPointsAt(tree.root, tree.commonDir, tree.gitDir);
  if (moved !== undefined)
    return `Its worktree ${tree.root} (branch ${tree.branch}) is kept unchecked: its .git file was changed (${moved}), so agentmd ran no git command in it.`;
  const at = { gitDir: tree.gitDir, workTree: tree.root };
  const status = await git(tree.root, ["status", "--porcelain", "--untracked-files=all"], at);
  const now = await git(tree.root, ["rev-parse", "HEAD"], at);
  const changed = !status.ok || status.out !== "" || !now.ok || now.out !== base;
  if (changed) return `Its changes are kept in the git worktree ${tree.root} on the branch ${tree.branch}.`;
  const removed = await removeWorktree(repo, tree);
  return removed.ok
    ? undefined
    : `Its worktree ${tree.root} (branch ${tree.branch}) could not be removed: ${removed.out}.`;
}

async function removeWorktree(repo: Repo, tree: Workdir) {
  const removed = await git(repo.top, ["worktree", "remove", "--force", tree.root], repo.from);
  if (removed.ok) await git(repo.top, ["branch", "-D", tree.branch], repo.from);
  return removed;
}
