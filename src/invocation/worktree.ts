import { randomBytes } from "node:crypto";
import { mkdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { escapeGlob } from "../permissions/path-pattern.js";
import { compileList, intersect } from "../permissions/permission-list.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { runProcess } from "../shared/run-process.js";
import type { RunSpec, Workdir } from "./run-types.js";

/**
 * `isolation: worktree`: a subagent's run works in a temporary git worktree on a new branch, made
 * from the repository's HEAD. The worktree is its working folder and the only folder its writing
 * tools may write (its list is intersected with one that keeps Edit, and the tools bound by Edit's
 * rules — Write, MultiEdit, NotebookEdit, Bash's redirections — inside it), so the sandbox, whose
 * writable roots come from those rules, writes only there too. Parallel runs each get their own.
 */
export interface Worktree {
  readonly spec: RunSpec;
  /**
   * After the run, however it ended: removed (with its branch) when nothing changed, else kept and
   * said in a sentence for the caller. Contract: never rejects.
   */
  close(): Promise<string | undefined>;
}

const git = async (cwd: string, args: readonly string[]) => {
  const r = await runProcess("git", args, { cwd, maxChars: 20_000, timeoutMs: 60_000 });
  const out = r.stdout.text().trim();
  return r.kind === "exited" && r.code === 0
    ? { ok: true as const, out }
    : { ok: false as const, out: r.stderr.text().trim() || out || r.kind };
};

/** Opens a worktree for `spec`'s run from `cwd`'s repository, or the sentence that refuses it. */
export async function openWorktree(
  spec: RunSpec,
  at: { readonly cwd: string; readonly specs: ToolSpecs },
): Promise<{ ok: true; tree: Worktree } | { ok: false; message: string }> {
  const refused = (why: string) => ({
    ok: false as const,
    message: `${spec.agent} asks for isolation: worktree, and ${why}; it was not started`,
  });
  const top = await git(at.cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return refused(`${at.cwd} is not inside a git repository`);
  const head = await git(top.out, ["rev-parse", "--verify", "-q", "HEAD"]);
  if (!head.ok) return refused("the repository has no commit yet to make a worktree from");
  const id = randomBytes(4).toString("hex");
  const parent = path.join(tmpdir(), "agentmd-worktrees");
  mkdirSync(parent, { recursive: true });
  const made = path.join(parent, `${path.basename(top.out)}-${id}`);
  const branch = `agentmd/${spec.agent.replace(/[^A-Za-z0-9._-]+/g, "-")}-${id}`;
  const add = await git(top.out, ["worktree", "add", "-q", "-b", branch, made, head.out]);
  if (!add.ok) return refused(`git worktree add failed (${add.out})`);
  const root = realpathSync(made);
  const workdir: Workdir = { root, branch, cwd: path.join(root, path.relative(top.out, at.cwd)) };
  const list = intersect(spec.list, writableOnlyIn(root, at.specs));
  return {
    ok: true,
    tree: { spec: { ...spec, list, workdir }, close: () => closeWorktree(top.out, workdir, head.out) },
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

async function closeWorktree(top: string, tree: Workdir, base: string): Promise<string | undefined> {
  const status = await git(tree.root, ["status", "--porcelain", "--untracked-files=all"]);
  const now = await git(tree.root, ["rev-parse", "HEAD"]);
  const changed = !status.ok || status.out !== "" || !now.ok || now.out !== base;
  if (changed) return `Its changes are kept in the git worktree ${tree.root} on the branch ${tree.branch}.`;
  const removed = await git(top, ["worktree", "remove", "--force", tree.root]);
  if (removed.ok) await git(top, ["branch", "-D", tree.branch]);
  return removed.ok
    ? undefined
    : `Its worktree ${tree.root} (branch ${tree.branch}) could not be removed: ${removed.out}.`;
}
