import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { FakeAnthropic, RecordedRequest } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { runSandboxTests } from "../support/sandbox.js";
import { call, calls, resultsSent, resultText, text, use } from "../support/script.js";

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
