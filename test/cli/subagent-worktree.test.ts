import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { FakeAnthropic, RecordedRequest } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { runSandboxTests } from "../support/sandbox.js";
import { call, calls, resultsSent, resultText, text, use } from "../support/script.js";
import { trustProject } from "../support/trust.js";

/**
 * `isolation: worktree`: a subagent's run works in a temporary git worktree (a new branch), the only
 * folder it may write; removed when it changed nothing, else named in the Task result. Real git
 * repositories in temporary folders, the fake server over HTTP, and bubblewrap where it is.
 */
const FILES = {
  "agent.md": "---\ntools: Read, Write, Edit, Bash, Task\n---\nMain.\n",
  "agents/iso.md":
    "---\nname: iso\ndescription: Isolated.\ntools: Read, Write, Edit, Bash\nisolation: worktree\n---\nWork.\n",
  "agents/boxed.md":
    "---\nname: boxed\ndescription: Isolated and sandboxed.\ntools: Read, Write, Bash\nisolation: worktree\nsandbox: true\n---\nWork.\n",
  "a.txt": "main\n",
};
const gitIn = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
const repo = (dir: string) => {
  gitIn(dir, "init", "-q", "-b", "main");
  gitIn(dir, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
  gitIn(dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
};
const task = (agent: string, id: string) =>
  use("Task", { subagent_type: agent, description: "d", prompt: "work" }, id);
const keptIn = (s: string) => /worktree (\S+) on the branch (\S+)\./.exec(s);
const runP = (dir: string, env: Record<string, string>) =>
  runCli(["-p", "go"], { cwd: dir, env: { ...env } });
const taskResult = (fake: FakeAnthropic, i: number, id: string) =>
  resultText(resultsSent(fake, i).find((b) => b.tool_use_id === id));

describe("isolation: worktree", () => {
  test("a subagent that writes works in its worktree: the main tree is untouched, path and branch come back", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project(FILES);
    repo(dir);
    fake.push(
      calls(task("iso", "toolu_t")),
      call("Write", { file_path: "b.txt", content: "from the worktree\n" }),
      call("Write", { file_path: `${dir}/c.txt`, content: "into the main tree\n" }, "toolu_main"),
      text("wrote"),
      text("done"),
    );
    const r = await runP(dir, env);
    expect(r.code).toBe(0);
    expect(existsSync(`${dir}/b.txt`)).toBe(false);
    expect(existsSync(`${dir}/c.txt`)).toBe(false);
    const refused = resultsSent(fake, 3).find((b) => b.tool_use_id === "toolu_main");
    expect(refused?.is_error).toBe(true);
    const kept = keptIn(taskResult(fake, 4, "toolu_t"));
    expect(kept).not.toBeNull();
    const [, root, branch] = kept as RegExpExecArray;
    expect(readFileSync(`${root}/b.txt`, "utf8")).toBe("from the worktree\n");
    expect(gitIn(dir, "branch", "--list", branch as string)).toContain(branch);
    gitIn(dir, "worktree", "remove", "--force", root as string);
  });

  test("a subagent that changes nothing leaves no worktree and no branch behind", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project(FILES);
    repo(dir);
    fake.push(
      calls(task("iso", "toolu_t")),
      call("Read", { file_path: "a.txt" }, "toolu_r"),
      text("read"),
      text("done"),
    );
    expect((await runP(dir, env)).code).toBe(0);
    // It read the worktree's copy of the file, inside its own working folder.
    expect(resultText(resultsSent(fake, 2)[0])).toContain("main");
    expect(taskResult(fake, 3, "toolu_t")).toBe("read");
    expect(gitIn(dir, "worktree", "list").split("\n")).toHaveLength(1);
    expect(gitIn(dir, "branch", "--list", "agentmd/*")).toBe("");
  });

  test("parallel subagents each get their own worktree", async ({ dir, env, fake, project }) => {
    project(FILES);
    repo(dir);
    // Each child writes on its first request and answers on its second, however the two interleave.
    const writes = ["one", "two"];
    const child = (req: RecordedRequest) =>
      JSON.stringify(req.body.messages).includes('"tool_result"')
        ? text("written")
        : call("Bash", { command: `echo ${writes.shift()} > n.txt` });
    fake.push(
      calls(task("iso", "toolu_1"), task("iso", "toolu_2")),
      child,
      child,
      child,
      child,
      text("done"),
    );
    expect((await runP(dir, env)).code).toBe(0);
    const last = fake.requests.length - 1;
    const roots = ["toolu_1", "toolu_2"].map((id) => keptIn(taskResult(fake, last, id))?.[1]);
    expect(new Set(roots).size).toBe(2);
    const contents = roots.map((root) => readFileSync(`${root}/n.txt`, "utf8").trim()).sort();
    expect(contents).toEqual(["one", "two"]);
    expect(existsSync(`${dir}/n.txt`)).toBe(false);
    for (const root of roots) gitIn(dir, "worktree", "remove", "--force", root as string);
  });

  test("outside a git repository: a clear error, and the subagent does not run in place", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project(FILES);
    fake.push(calls(task("iso", "toolu_t")), text("done"));
    expect((await runP(dir, env)).code).toBe(0);
    expect(fake.requests).toHaveLength(2);
    const [t] = resultsSent(fake, 1);
    expect(t?.is_error).toBe(true);
    expect(resultText(t)).toContain("asks for isolation: worktree, and");
    expect(resultText(t)).toContain("is not inside a git repository");
  });

  test.runIf(runSandboxTests)(
    "in the sandbox, a command writes only in its worktree: not the main tree",
    async ({ dir, env, fake, project }) => {
      project(FILES);
      repo(dir);
      fake.push(
        calls(task("boxed", "toolu_t")),
        call(
          "Bash",
          { command: `echo inside > w.txt; echo outside > ${dir}/x.txt; cat ${dir}/x.txt` },
          "toolu_b",
        ),
        text("tried"),
        text("done"),
      );
      expect((await runP(dir, env)).code).toBe(0);
      expect(existsSync(`${dir}/x.txt`)).toBe(false);
      const root = keptIn(taskResult(fake, 3, "toolu_t"))?.[1];
      expect(readFileSync(`${root}/w.txt`, "utf8")).toBe("inside\n");
      gitIn(dir, "worktree", "remove", "--force", root as string);
    },
  );
});

/**
 * The worktree is the model's to write: agentmd's own git commands take nothing from it (not its
 * `.git` file, not a config it points at), and the run's hooks run the project's scripts, never
 * the worktree's copies.
 */
describe("isolation: worktree takes no code from the worktree", () => {
  test("a subagent with Read and Write repoints its .git at a git folder whose fsmonitor runs a program: agentmd's git runs nothing", async ({
    dir,
    env,
    fake,
    project,
    cli,
  }) => {
    const marker = path.join(env.HOME as string, "pwned");
    project({
      ...FILES,
      "agents/writer.md":
        "---\nname: writer\ndescription: Writes.\ntools: Read, Write\nisolation: worktree\n---\nWork.\n",
    });
    repo(dir);
    mkdirSync(env.HOME as string, { recursive: true });
    const write = (file_path: string, content: string, id: string) =>
      use("Write", { file_path, content }, id);
    fake.push(
      calls(task("writer", "toolu_t")),
      call("Read", { file_path: ".git" }, "toolu_r"),
      calls(
        write("evil/HEAD", "ref: refs/heads/main\n", "toolu_1"),
        write("evil/objects/keep", "", "toolu_2"),
        write("evil/refs/keep", "", "toolu_3"),
        write(
          "evil/config",
          `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}\n`,
          "toolu_4",
        ),
        write(".git", "gitdir: evil\n", "toolu_5"),
      ),
      text("rewired"),
      text("done"),
    );
    expect((await cli(["-p", "go"])).code).toBe(0);
    expect(resultsSent(fake, 3).map((b) => b.is_error ?? false)).toEqual([false, false, false, false, false]);
    expect(existsSync(marker)).toBe(false);
    const said = taskResult(fake, 4, "toolu_t");
    expect(said).toContain("is kept unchecked: its .git file was changed");
    // Its .git no longer points back: the test removes the folder and lets git forget it.
    rmSync(/worktree (\S+) \(branch/.exec(said)?.[1] as string, { recursive: true, force: true });
    gitIn(dir, "worktree", "prune");
  });

  test("a project hook run as `sh .claude/hooks/guard.sh` runs the project's script, not the worktree's copy the subagent rewrote", async ({
    dir,
    env,
    fake,
    project,
    cli,
  }) => {
    const marker = path.join(env.HOME as string, "pwned");
    const hook = { type: "command", command: "sh .claude/hooks/guard.sh" };
    project({
      ...FILES,
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] },
      }),
      ".claude/hooks/guard.sh": "cat >/dev/null\nexit 0\n",
    });
    repo(dir);
    trustProject(dir, env.HOME);
    fake.push(
      calls(task("iso", "toolu_t")),
      call("Read", { file_path: ".claude/hooks/guard.sh" }, "toolu_r"),
      call("Write", { file_path: ".claude/hooks/guard.sh", content: `touch ${marker}\nexit 0\n` }, "toolu_w"),
      call("Bash", { command: "echo hi" }, "toolu_b"),
      text("tried"),
      text("done"),
    );
    expect((await cli(["-p", "go"])).code).toBe(0);
    expect(resultsSent(fake, 3)[0]?.is_error ?? false).toBe(false);
    expect(resultText(resultsSent(fake, 4)[0])).toBe("hi\n[exit code 0]");
    expect(existsSync(marker)).toBe(false);
    const root = keptIn(taskResult(fake, 5, "toolu_t"))?.[1] as string;
    gitIn(dir, "worktree", "remove", "--force", root);
  });
});

describe("isolation: worktree of a project folder HEAD lacks", () => {
  const newProject = (dir: string, project: (f: Record<string, string>) => string, ignored: boolean) => {
    project({ "README.md": "top\n", ...(ignored && { ".gitignore": "proj/\n" }) });
    repo(dir);
    project(Object.fromEntries(Object.entries(FILES).map(([f, c]) => [`proj/${f}`, c])));
    return path.join(dir, "proj");
  };

  test("the subagent gets the folder as it is on disk, and a run that changed nothing leaves nothing behind", async ({
    dir,
    fake,
    project,
    cli,
  }) => {
    const proj = newProject(dir, project, false);
    fake.push(
      calls(task("iso", "toolu_t")),
      call("Bash", { command: "cat a.txt" }),
      text("read"),
      text("done"),
    );
    expect((await cli(["-p", "go"], { cwd: proj })).code).toBe(0);
    expect(resultText(resultsSent(fake, 2)[0])).toBe("main\n[exit code 0]");
    expect(taskResult(fake, 3, "toolu_t")).toBe("read");
    expect(gitIn(dir, "worktree", "list").split("\n")).toHaveLength(1);
    expect(gitIn(dir, "branch", "--list", "agentmd/*")).toBe("");
    expect(gitIn(dir, "status", "--porcelain")).toBe("?? proj/");
  });

  test("what the subagent changes is kept on its branch, on top of the folder as it was", async ({
    dir,
    fake,
    project,
    cli,
  }) => {
    const proj = newProject(dir, project, false);
    fake.push(
      calls(task("iso", "toolu_t")),
      call("Bash", { command: "echo changed > a.txt" }),
      text("wrote"),
      text("done"),
    );
    expect((await cli(["-p", "go"], { cwd: proj })).code).toBe(0);
    const [, root, branch] = keptIn(taskResult(fake, 3, "toolu_t")) as RegExpExecArray;
    expect(readFileSync(`${root}/proj/a.txt`, "utf8")).toBe("changed\n");
    expect(readFileSync(path.join(proj, "a.txt"), "utf8")).toBe("main\n");
    expect(gitIn(dir, "show", `${branch}:proj/a.txt`)).toBe("main");
    gitIn(dir, "worktree", "remove", "--force", root as string);
  });

  test("a folder git ignores: the Task fails saying why, and nothing runs in a broken folder", async ({
    dir,
    fake,
    project,
    cli,
  }) => {
    const proj = newProject(dir, project, true);
    fake.push(calls(task("iso", "toolu_t")), text("done"));
    expect((await cli(["-p", "go"], { cwd: proj })).code).toBe(0);
    expect(fake.requests).toHaveLength(2);
    const [t] = resultsSent(fake, 1);
    expect(t?.is_error).toBe(true);
    expect(resultText(t)).toContain(
      "iso asks for isolation: worktree, and its working folder proj is not in the repository's HEAD, and git ignores it",
    );
    expect(gitIn(dir, "worktree", "list").split("\n")).toHaveLength(1);
  });
});
