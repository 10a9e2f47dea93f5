import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { ofType, sdkQuery } from "../support/agent-sdk.js";
import { runCli } from "../support/cli.js";
import { test as it } from "../support/fixture.js";
import { jsonLines } from "../support/runs.js";
import { call, promptOf, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * What a Claude Code user expects of approvals, through the built CLI: an agent.md without a list
 * approves nothing, read-only commands run unasked, a command's `!` lines run at the caller's level.
 * The first describe's runs cross the built CLI; the later runs, the CLI's main() in this process.
 */

/** Anthropic's own /commit (the commit-commands plugin), as published. */
const COMMIT = `---
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)
description: Create a git commit
---

## Context

- Current git status: !\`git status\`
- Current git diff (staged and unstaged changes): !\`git diff HEAD\`
- Current branch: !\`git branch --show-current\`
- Recent commits: !\`git log --oneline -10\`

## Your task

Based on the above changes, create a single git commit.
`;

/** A git repository on branch `topic` with one commit. */
const git = (dir: string) => {
  const run = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  run("init", "-q", "-b", "topic");
  run("commit", "-q", "--allow-empty", "-m", "first");
};

const denials = (out: string) =>
  jsonLines(out).flatMap((e) => (e.type === "tool_end" && e.decision === "denied" ? [e.name] : []));

describe("an agent.md without allowed-tools approves nothing", () => {
  it("run asks for (and so refuses) a touch outside the project; reads and ls still run", async ({
    dir,
    fake,
    cli,
  }) => {
    const proj = path.join(dir, "proj");
    const outside = path.join(dir, "outside");
    writeFiles(proj, { "agent.md": "You are a helpful reviewer.\n", "a.txt": "alpha\n" });
    fake.push(
      call("Bash", { command: `touch ${outside}` }),
      call("Bash", { command: "ls" }),
      call("Read", { file_path: "a.txt" }),
      text("done"),
    );
    const r = await cli(["run", "--output", "stream-json", "go"], { cwd: proj });
    expect(existsSync(outside)).toBe(false);
    const refused = resultText(resultsSent(fake, 1)[0]);
    expect(refused).toMatch(/needs approval \(it is not pre-approved\), and this run cannot ask/);
    expect(refused).toContain("--allowedTools 'Bash(touch:*)'");
    expect(resultText(resultsSent(fake, 2)[0])).toContain("a.txt");
    expect(resultText(resultsSent(fake, 3)[0])).toContain("alpha");
    expect(denials(r.stdout)).toEqual(["Bash"]);
  });

  it("tools --try does not say allowed, and check says the agent.md approves nothing", async ({ dir }) => {
    writeFiles(dir, { "agent.md": "You are a helpful reviewer.\n" });
    const env = { HOME: path.join(dir, "home") };
    const rm = await runCli(["tools", "--try", "Bash", '{"command":"rm -rf /"}'], { cwd: dir, env });
    expect(rm.code).toBe(4);
    expect(rm.stdout).toMatch(/^needs approval \(it is not pre-approved\)/);
    const checked = await runCli(["check"], { cwd: dir, env });
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(
      /agent\.md:1:1: info: agent\.md has no allowed-tools, so it approves nothing/,
    );
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nYou review.\n" });
    expect((await runCli(["tools", "--try", "Bash", '{"command":"rm -rf /"}'], { cwd: dir, env })).code).toBe(
      0,
    );
    expect((await runCli(["check"], { cwd: dir, env })).stdout).not.toContain("approves-nothing");
  });

  it("the same through the SDK's stream-json: the touch is refused, saying what to add", async ({
    dir,
    env,
    fake,
  }) => {
    const proj = path.join(dir, "proj");
    const outside = path.join(dir, "outside");
    writeFiles(proj, { "agent.md": "You are a helpful reviewer.\n" });
    fake.push(call("Bash", { command: `touch ${outside}` }, "toolu_1"), text("done"));
    const run = await sdkQuery("go", { cwd: proj, env });
    expect(run.error, run.stderr).toBeUndefined();
    expect(existsSync(outside)).toBe(false);
    expect(resultText(resultsSent(fake, 1)[0])).toContain("Bash(touch:*)");
    expect(ofType(run, "result")[0]?.permission_denials).toHaveLength(1);
  });
});

describe("read-only commands run without asking in the default mode", () => {
  it("ls, git log, cat CLAUDE.md, pwd and git branch --show-current run; cat of a file outside asks", async ({
    dir,
    fake,
    main,
  }) => {
    git(dir);
    writeFiles(dir, { "CLAUDE.md": "# the project\n" });
    const lines = ["ls", "git log", "cat CLAUDE.md", "pwd", "git branch --show-current", "cat /etc/hostname"];
    fake.push(...lines.map((command) => call("Bash", { command })), text("done"));
    const r = await main(["run", "--output", "stream-json", "look"]);
    expect(denials(r.stdout)).toEqual(["Bash"]);
    expect(resultText(resultsSent(fake, 3)[0])).toContain("# the project");
    expect(resultText(resultsSent(fake, 4)[0])).toContain(dir);
    expect(resultText(resultsSent(fake, 5)[0])).toContain("topic");
    expect(resultText(resultsSent(fake, 6)[0])).toMatch(
      /needs approval \(it reads outside the working folders\)/,
    );
  });
});

describe("a command's ! lines are judged at the caller's level", () => {
  it("the official /commit runs in a project without agent.md, and still cannot push", async ({
    dir,
    fake,
    main,
  }) => {
    git(dir);
    writeFiles(dir, { ".claude/commands/commit.md": COMMIT });
    fake.push(call("Bash", { command: "git push origin topic" }), text("done"));
    const r = await main(["run", "--output", "stream-json", "/commit"]);
    expect(r.code, r.stderr).toBe(0);
    const prompt = promptOf(fake, 0);
    expect(prompt).toContain("Current branch: topic");
    expect(prompt).not.toContain("was not run");
    expect(resultText(resultsSent(fake, 1)[0])).toMatch(/is not allowed/);
    expect(denials(r.stdout)).toEqual(["Bash"]);
    const checked = await runCli(["check"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(checked.stdout).toContain("0 errors, 0 warnings");
  });

  it("a line neither the command nor the read-only table approves runs once settings pre-approve it", async ({
    dir,
    fake,
    main,
  }) => {
    git(dir);
    writeFiles(dir, {
      "a.txt": "same\n",
      "b.txt": "same\n",
      ".claude/commands/cmp.md":
        "---\nallowed-tools: Bash(git status:*)\n---\nDiff: !`git diff --no-index a.txt b.txt`\n",
    });
    fake.push(text("done"));
    const refused = await main(["run", "/cmp"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/needs approval .*Bash\(git diff:\*\)/s);
    const env = { HOME: path.join(dir, "home") };
    const checked = await runCli(["check"], { cwd: dir, env });
    expect(checked.stdout).toMatch(
      /cmp\.md:4:1: warning: the command !`git diff --no-index a\.txt b\.txt` needs approval .* add 'Bash\(git diff:\*\)' to the allowed-tools of \.claude\/commands\/cmp\.md:2, or to permissions\.allow in \.claude\/settings\.json/,
    );
    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(git diff:*)"] } }),
    });
    const ran = await main(["run", "/cmp"]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(promptOf(fake, 0)).toMatch(/^Diff:/);
    expect((await runCli(["check"], { cwd: dir, env })).stdout).toContain("0 errors, 0 warnings");
  });

  it("a line agent.md's list refuses is an error that says what to add to agent.md", async ({ dir }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash(git status:*)\n---\nx\n",
      "commands/st.md": "---\nallowed-tools: Bash(git:*)\n---\n!`git log -1`\n",
    });
    const r = await runCli(["check"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /error: the command !`git log -1` would be refused .* add 'Bash\(git log:\*\)' to the allowed-tools of agent\.md/,
    );
    expect(readFileSync(path.join(dir, "agent.md"), "utf8")).toContain("git status");
  });
});

describe("a denial names the hop that narrowed the run", () => {
  it("after an inline skill narrows the run, Write is refused naming the skill and its SKILL.md", async ({
    dir,
    fake,
    main,
  }) => {
    writeFiles(dir, {
      "skills/notes/SKILL.md":
        "---\nname: notes\ndescription: Reads notes.\nallowed-tools: Read, Grep\n---\nRead the notes.\n",
    });
    fake.push(
      call("Skill", { skill: "notes" }),
      call("Write", { file_path: "notes/x.md", content: "x" }),
      text("done"),
    );
    await main(["run", "--output", "stream-json", "go"]);
    const refused = resultText(resultsSent(fake, 2)[0]);
    expect(refused).toContain("Write is not allowed in this run");
    expect(refused).toMatch(/[Tt]he skill 'notes' \(skills\/notes\/SKILL\.md\) narrowed this run/);
    const env = { HOME: path.join(dir, "home") };
    const tried = await runCli(
      ["tools", "--chain", "main,skill:notes", "--try", "Write", '{"file_path":"notes/x.md","content":"x"}'],
      { cwd: dir, env },
    );
    expect(tried.code).toBe(3);
    expect(tried.stdout).toMatch(/[Tt]he skill 'notes' \(skills\/notes\/SKILL\.md\) narrowed this run/);
  });
});
