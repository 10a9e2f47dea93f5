import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hooksRunIn } from "../../src/invocation/worktree.js";
import { unquoted } from "../../src/invocation/worktree-folder.js";
import {
  git,
  gitEnv,
  SAFE_GIT_CONFIG,
  stillPointsAt,
  worktreeGitDir,
} from "../../src/invocation/worktree-git.js";
import type { Hook, Hooks } from "../../src/loop/hooks.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * agentmd's own git on a worktree the model can write: which `.git` file it vouches for, and that
 * no config, hook or `.git` file makes it run a program. Real git in temporary repositories.
 */
let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: dir, GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();

/** A repository with one commit and a worktree of it, as openWorktree makes them. */
function repoWithWorktree() {
  const top = path.join(dir, "repo");
  writeFiles(top, { "a.txt": "a\n" });
  sh(top, "init", "-q", "-b", "main");
  sh(top, "add", "-A");
  sh(top, "commit", "-qm", "init");
  const tree = path.join(dir, "tree");
  sh(top, "worktree", "add", "-q", "-b", "w", tree);
  const root = realpathSync(tree);
  const common = realpathSync(path.join(top, ".git"));
  return { top, root, common, gitDir: path.join(common, "worktrees", "tree") };
}

describe("worktreeGitDir: the .git file agentmd vouches for", () => {
  it("the file git wrote names the worktree's folder inside the repository's worktrees/", () => {
    const { root, common, gitDir } = repoWithWorktree();
    expect(worktreeGitDir(root, common)).toEqual({ gitDir });
    expect(stillPointsAt(root, common, gitDir)).toBeUndefined();
  });

  it.each<[string, (root: string, common: string) => void, RegExp]>([
    [
      "repointed at a folder of the worktree",
      (r) => {
        mkdirSync(`${r}/evil`);
        writeFileSync(`${r}/.git`, "gitdir: evil\n");
      },
      /outside/,
    ],
    [
      "repointed at the worktrees/ folder itself",
      (r, c) => writeFileSync(`${r}/.git`, `gitdir: ${c}/worktrees\n`),
      /outside/,
    ],
    [
      "repointed at the repository's own git folder",
      (r, c) => writeFileSync(`${r}/.git`, `gitdir: ${c}\n`),
      /outside/,
    ],
    ["not naming a git folder", (r) => writeFileSync(`${r}/.git`, "hello\n"), /does not name a git folder/],
    [
      "a symlink to the real file",
      (r, c) => {
        writeFileSync(path.join(dir, "copy"), `gitdir: ${c}/worktrees/tree\n`);
        execFileSync("rm", [`${r}/.git`]);
        symlinkSync(path.join(dir, "copy"), `${r}/.git`);
      },
      /is not the file git wrote/,
    ],
    [
      "a folder",
      (r) => {
        execFileSync("rm", [`${r}/.git`]);
        mkdirSync(`${r}/.git`);
      },
      /is not the file git wrote/,
    ],
    ["gone", (r) => execFileSync("rm", [`${r}/.git`]), /cannot be read/],
  ])("refused: %s", (_, change, why) => {
    const { root, common, gitDir } = repoWithWorktree();
    change(root, common);
    expect(worktreeGitDir(root, common).gitDir).toBeUndefined();
    expect(stillPointsAt(root, common, gitDir)).toMatch(why);
  });
});

describe("git as agentmd runs it runs no program of any config", () => {
  const marker = () => path.join(dir, "ran");
  const hook = (file: string) => {
    writeFileSync(file, `#!/bin/sh\ntouch ${marker()}\n`);
    chmodSync(file, 0o755);
  };

  it("a worktree's .git repointed at a git folder whose fsmonitor runs a program", () => {
    const { root, gitDir } = repoWithWorktree();
    writeFiles(root, {
      "evil/HEAD": "ref: refs/heads/main\n",
      "evil/objects/keep": "",
      "evil/refs/keep": "",
      "evil/config": `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker()}\n`,
    });
    writeFileSync(`${root}/.git`, "gitdir: evil\n");
    return git(root, ["status", "--porcelain"], { gitDir, workTree: root }).then((r) => {
      expect(r.ok).toBe(true);
      expect(existsSync(marker())).toBe(false);
    });
  });

  it.each<[string, (top: string, common: string) => void, (top: string, root: string) => string[][]]>([
    [
      "core.fsmonitor in the repository's config (as an allowed `git config` writes it)",
      (top) => sh(top, "config", "core.fsmonitor", `touch ${marker()}`),
      () => [["status", "--porcelain"]],
    ],
    [
      "a post-checkout hook, run by worktree add",
      (_, common) => hook(path.join(common, "hooks", "post-checkout")),
      (_top, root) => [["worktree", "add", "-q", "-b", "x", `${root}-2`]],
    ],
    [
      "a pre-commit hook and a signing program, run by commit",
      (top, common) => {
        hook(path.join(common, "hooks", "pre-commit"));
        sh(top, "config", "commit.gpgSign", "true");
        sh(top, "config", "gpg.program", `sh -c 'touch ${marker()}'`);
      },
      () => [
        ["add", "-A"],
        ["-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "m"],
      ],
    ],
  ])("%s", async (_, setUp, commands) => {
    const { top, root, common, gitDir } = repoWithWorktree();
    setUp(top, common);
    writeFileSync(path.join(root, "b.txt"), "b\n");
    for (const args of commands(top, root)) {
      const r = await git(root, args, { gitDir, workTree: root });
      expect([args[0], r.ok, r.out]).toEqual([args[0], true, expect.any(String)]);
    }
    expect(existsSync(marker())).toBe(false);
  });

  it("every setting it passes is one git accepts", async () => {
    const { root, gitDir } = repoWithWorktree();
    for (const setting of SAFE_GIT_CONFIG) {
      const [key] = setting.split("=");
      const r = await git(root, ["config", "--get", key as string], { gitDir, workTree: root });
      expect([setting, r.out]).toEqual([setting, setting.slice((key as string).length + 1)]);
    }
  });
});

describe("gitEnv", () => {
  it("property: none of the caller's GIT_ variables reaches agentmd's git; the others do", () => {
    const name = fc.oneof(
      fc.stringMatching(/^GIT_[A-Z_]{1,12}$/),
      fc.stringMatching(/^[A-FH-Z][A-Z_]{0,12}$/),
    );
    fc.assert(
      fc.property(fc.dictionary(name, fc.string({ maxLength: 8 })), (env) => {
        const out = gitEnv(env);
        expect(
          Object.keys(out)
            .filter((k) => k.startsWith("GIT_"))
            .sort(),
        ).toEqual(["GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"]);
        expect([out.GIT_CONFIG_NOSYSTEM, out.GIT_TERMINAL_PROMPT]).toEqual(["1", "0"]);
        for (const [k, v] of Object.entries(env)) if (!k.startsWith("GIT_")) expect(out[k]).toBe(v);
      }),
    );
  });
});

describe("hooksRunIn", () => {
  const command = (cwd?: string): Hook => ({ command: "sh .claude/hooks/guard.sh", ...(cwd && { cwd }) });
  const fn: Hook = { run: () => undefined };

  it("property: a command hook with no folder of its own runs in the given one; others are kept", () => {
    const hook = fc.oneof(
      fc.constant(fn),
      fc.constant(command()),
      fc.constantFrom("/plugin", "/elsewhere").map((d) => command(d)),
    );
    const events = fc.constantFrom("PreToolUse", "PostToolUse", "Stop", "SubagentStop");
    fc.assert(
      fc.property(fc.dictionary(events, fc.array(hook, { maxLength: 4 })), (hooks) => {
        const out = hooksRunIn(hooks as Hooks, "/project");
        for (const [event, list] of Object.entries(hooks)) {
          const moved = out[event as keyof Hooks] ?? [];
          expect(moved).toHaveLength(list.length);
          list.forEach((h, i) => {
            const m = moved[i] as Hook;
            if (!("command" in h)) expect(m).toBe(h);
            else expect("command" in m && m.cwd).toBe(h.cwd ?? "/project");
          });
        }
      }),
    );
  });
});

describe("unquoted: paths as git lists them", () => {
  it("every file name git can hold comes back as it was written", async () => {
    const { root, gitDir } = repoWithWorktree();
    const names = fc.sample(
      fc
        .string({ minLength: 1, maxLength: 12, unit: "binary" })
        .filter((s) => !/[\0/]/.test(s) && s !== "." && s !== ".." && s !== ".git"),
      { numRuns: 40, seed: 7 },
    );
    const wanted = [...new Set([...names, "tab\there", 'quote"d', "back\\slash", "é", " lead", "trail "])];
    for (const [i, n] of wanted.entries()) {
      mkdirSync(path.join(root, "n", String(i)), { recursive: true });
      writeFileSync(path.join(root, "n", String(i), n), "x");
    }
    const r = await git(root, ["-c", "core.quotePath=false", "ls-files", "--others", "--", "n"], {
      gitDir,
      workTree: root,
    });
    const listed = r.out.split("\n").map(unquoted);
    const byIndex = new Map(listed.map((f) => [f.split("/")[1], f.split("/").slice(2).join("/")]));
    expect(wanted.map((n, i) => byIndex.get(String(i)) === n)).toEqual(wanted.map(() => true));
  });
});
