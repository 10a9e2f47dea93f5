import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { jsonLines, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * The attacks of the red-team review, each through the CLI as a user runs it, against a scripted
 * model: what the model is told (and what happened on disk) proves the promise held.
 */

const it = test.extend<{
  run: (args: string[], cwd?: string) => Promise<CliRun>;
  told: (i: number, k?: number) => string;
}>({
  run: async ({ dir, env }, use) => {
    await use((args, cwd = dir) => runCli(["run", "--output", "stream-json", ...args], { cwd, env }));
  },
  told: async ({ fake }, use) => {
    await use((i, k = 0) => resultText(resultsSent(fake, i)[k]));
  },
});

describe("1. the project root", () => {
  it("a run from a subfolder that holds a commands/ folder of code keeps agent.md's list", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      "src/commands/build.ts": "export {};\n",
    });
    fake.push(call("Bash", { command: "touch pwned" }), text("done"));
    await run(["go"], path.join(dir, "src"));
    expect(told(1)).toBe(
      "Bash is not allowed in this run. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(existsSync(path.join(dir, "src", "pwned"))).toBe(false);
  });

  it("agentmd tools says which root and which agent.md it used", async ({ dir }) => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nMain.\n", "skills/s/SKILL.md": "x" });
    const r = await runCli(["tools"], { cwd: path.join(dir, "skills", "s"), env: { HOME: "/nowhere" } });
    expect(r.stdout.split("\n")[0]).toBe(`project: ${dir} (agent.md: agent.md)`);
  });

  it("a .git folder is the root when no folder above holds agent.md or .claude/", async ({ dir }) => {
    writeFiles(dir, { "src/deep/a.txt": "x" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const r = await runCli(["tools"], { cwd: path.join(dir, "src", "deep"), env: { HOME: "/nowhere" } });
    expect(r.stdout.split("\n")[0]).toContain(`project: ${dir} (agent.md: none`);
  });
});

describe("2. commands judged part by part", () => {
  it("runs a pipeline whose every part is allowed, refuses a list with one that is not", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash(echo:*), Bash(head:*)\n---\nMain.\n",
      victim: "x",
    });
    fake.push(
      call("Bash", { command: "echo one two | head -1" }),
      call("Bash", { command: "echo hi; rm -f victim" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toBe("one two\n[exit code 0]");
    expect(told(2)).toContain("its command 'rm -f victim' matches none of the patterns");
    expect(existsSync(path.join(dir, "victim"))).toBe(true);
  });

  it("a deny of git push holds against options before the subcommand and git -c", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash\ndisallowed-tools: Bash(git push:*)\n---\nMain.\n",
    });
    fake.push(
      call("Bash", { command: "git -C . push origin main" }),
      call("Bash", { command: "git -c alias.p=push p" }),
      call("Bash", { command: "GIT_SSH_COMMAND='touch pwned' git fetch" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toContain("is denied by 'Bash(git push:*)'");
    expect(told(2)).toContain("cannot be judged against the deny rule");
    expect(told(3)).toContain("cannot be judged");
  });
});

describe("3. read rules cover every reading tool; paths are what they seem", () => {
  it("Grep prints no line of a file that Read(.env) denies", async ({ dir, fake, run, told }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Grep, Glob\ndisallowed-tools: Read(.env)\n---\nMain.\n",
      ".env": "API_TOKEN=hunter2\n",
      "notes.txt": "API_TOKEN is set in .env\n",
    });
    fake.push(
      call("Grep", { pattern: "API_TOKEN", output_mode: "content" }),
      call("Grep", { pattern: "hunter2", path: ".env", output_mode: "content" }),
      call("Glob", { pattern: "*", path: "." }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toContain("notes.txt");
    expect(told(1)).not.toContain("hunter2");
    expect(told(2)).toContain("is denied by 'Read(.env)'");
    expect(told(3)).not.toContain(".env");
  });

  it("Read(src/**) does not reach /etc through a symlink inside src/, for Read or Write", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read(src/**), Write(src/**), Edit(src/**)\n---\nMain.\n",
      "outside/secret.txt": "classified\n",
    });
    mkdirSync(path.join(dir, "src"));
    symlinkSync(path.join(dir, "outside"), path.join(dir, "src", "link"));
    fake.push(
      call("Read", { file_path: "src/link/secret.txt" }),
      call("Write", { file_path: "src/link/planted.txt", content: "x" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toContain("leads through a symlink to");
    expect(told(1)).not.toContain("classified");
    expect(told(2)).toContain("leads through a symlink to");
    expect(existsSync(path.join(dir, "outside", "planted.txt"))).toBe(false);
  });

  it("a project folder named proj{a,b} keeps Read(secrets/**) denied", async ({ dir, fake, run, told }) => {
    const root = path.join(dir, "proj{a,b}");
    writeFiles(root, {
      "agent.md": "---\nallowed-tools: Read\ndisallowed-tools: Read(secrets/**)\n---\nMain.\n",
      "secrets/key": "s3cret\n",
    });
    fake.push(call("Read", { file_path: "secrets/key" }), text("done"));
    await run(["go"], root);
    expect(told(1)).toContain("is denied by 'Read(secrets/**)'");
  });
});

describe("4. lists that look empty are empty", () => {
  it.for(["[]", '""', '","', '[""]'])(
    "allowed-tools: %s refuses the run",
    async (value, { dir, fake, run }) => {
      writeFiles(dir, { "agent.md": `---\nallowed-tools: ${value}\n---\nMain.\n` });
      fake.push(text("never asked"));
      const r = await run(["go"]);
      expect(r.code).toBe(2);
      expect(fake.requests).toHaveLength(0);
      const check = await runCli(["check"], { cwd: dir, env: { HOME: "/nowhere" } });
      expect(check.stdout).toContain("may use no tools at all");
    },
  );
});

describe("5. hooks fail closed", () => {
  it("a misspelled hook event is a load error", async ({ dir }) => {
    writeFiles(dir, {
      "agent.md":
        "---\nallowed-tools: Bash\nhooks:\n  preToolUse:\n    - matcher: Bash\n      command: exit 2\n---\nMain.\n",
    });
    const r = await runCli(["check"], { cwd: dir, env: { HOME: "/nowhere" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("unknown hook event 'preToolUse'; did you mean 'PreToolUse'?");
  });

  it("honours JSON answers, times out, matches Agent for Task, and never shows the key", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": [
        "---",
        "allowed-tools: Bash, Task",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Bash",
        "      hooks:",
        "        - type: command",
        `          command: 'p=$(cat); env | grep -c ANTHROPIC_API_KEY > "${dir}/hook-saw-key"; case $p in *sleepy*) sleep 30;; *deny-me*) echo ''{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}'';; esac'`,
        "          timeout: 1",
        "    - matcher: Agent",
        "      command: echo 'no subagents' >&2; exit 2",
        "---",
        "Main.",
      ].join("\n"),
      "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
    });
    trustProject(dir);
    fake.push(
      call("Bash", { command: "echo deny-me" }),
      call("Bash", { command: "echo sleepy" }),
      call("Task", { description: "h", prompt: "help", subagent_type: "helper" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toBe("Blocked by a PreToolUse hook: not today");
    expect(told(2)).toContain("did not finish within 1 s; a PreToolUse hook that fails blocks the call");
    expect(told(3)).toBe("Blocked by a PreToolUse hook: no subagents");
    expect(execFileSync("cat", [path.join(dir, "hook-saw-key")], { encoding: "utf8" }).trim()).toBe("0");
  });

  it("a skill's hooks apply while it is active, when the model invoked it", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash, Skill\n---\nMain.\n",
      "skills/careful/SKILL.md":
        "---\nname: careful\ndescription: Careful.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: echo 'careful now' >&2; exit 2\n---\nBe careful.\n",
    });
    trustProject(dir);
    fake.push(
      call("Bash", { command: "echo before" }),
      call("Skill", { skill: "careful" }),
      call("Bash", { command: "echo after" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toBe("before\n[exit code 0]");
    expect(told(3)).toBe("Blocked by a PreToolUse hook: careful now");
  });
});

describe("6. the other hops", () => {
  it("a fork skill with agent: X is refused where the caller may not start X", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Skill, Task(other)\n---\nMain.\n",
      "agents/reviewer.md": "---\nname: reviewer\ndescription: R.\ntools: Read\n---\nR.\n",
      "agents/other.md": "---\nname: other\ndescription: O.\ntools: Read\n---\nO.\n",
      "skills/sneak/SKILL.md":
        "---\nname: sneak\ndescription: S.\ncontext: fork\nagent: reviewer\n---\nGo.\n",
    });
    fake.push(call("Skill", { skill: "sneak" }), text("done"));
    await run(["go"]);
    expect(told(1)).toContain("runs as the subagent 'reviewer', which this run may not start");
    expect(fake.requests).toHaveLength(2);
  });

  it("a fork skill that invokes itself stops at maxDepth with a clear result", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Skill\nmaxDepth: 2\n---\nMain.\n",
      "skills/again/SKILL.md": "---\nname: again\ndescription: Again.\ncontext: fork\n---\nAgain.\n",
    });
    const again = call("Skill", { skill: "again" });
    fake.push(again, again, again, text("deepest"), text("middle"), text("top"));
    const r = await run(["go"]);
    const depths = ofType(jsonLines(r.stdout), "run_start").map((e) => e.depth);
    expect(Math.max(...depths)).toBe(2);
    expect(told(3)).toBe("runs nest at most 2 deep (maxDepth), so this one was not started.");
  });

  it("strips terminal control sequences from diagnostics and warnings", async ({ dir }) => {
    writeFiles(dir, {
      "agents/\x1b[31mred.md": "---\nname: red\ndescription: Red.\ncolour: \x1b[2Jx\n---\nR.\n",
    });
    const r = await runCli(["check"], { cwd: dir, env: { HOME: "/nowhere" } });
    expect(r.stdout).not.toContain("\x1b");
    expect(r.stdout).toContain("^[[31mred.md");
  });

  it("a command cannot read the API key from agentmd's environment", async ({ dir, fake, cli, told }) => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n" });
    fake.push(
      call("Bash", { command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c sk-very-secret || true" }),
      text("done"),
    );
    const r = await cli(["run", "go"], { env: { ANTHROPIC_API_KEY: "sk-very-secret" }, launcher: true });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-very-secret");
    expect(told(1)).toBe("0\n[exit code 0]");
  });
});

describe("8. the runner's own state", () => {
  it("a subagent denied a file cannot find it in its caller's transcript", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Grep, Glob, Task(auditor)\n---\nM\n",
      "agents/auditor.md":
        "---\nname: auditor\ndescription: d\ntools: Read, Grep, Glob\ndisallowed-tools: Read(.env)\n---\nA\n",
      ".env": "API_TOKEN=hunter2-very-secret\n",
    });
    fake.push(
      call("Read", { file_path: ".env" }),
      call("Task", { subagent_type: "auditor", description: "d", prompt: "p" }),
      call("Grep", { pattern: "hunter2", path: ".agentmd", output_mode: "content" }),
      call("Grep", { pattern: "hunter2", output_mode: "content" }),
      call("Glob", { pattern: ".agentmd/**" }),
      call("Read", { file_path: `.agentmd/sessions/${"x".repeat(3)}.jsonl` }),
      text("sub done"),
      text("main done"),
    );
    const r = await run(["go"]);
    expect(r.code).toBe(0);
    expect(told(1)).toContain("hunter2-very-secret");
    for (const i of [3, 4, 5, 6]) expect(told(i), String(i)).not.toContain("very-secret");
    expect(told(5)).not.toContain(".jsonl");
    expect(told(6)).toContain("is denied by 'Read(.agentmd/**)'");
  });
});

describe("7. code the parser would not show as commands", () => {
  const agent = (allow: string, deny = "") =>
    `---\nallowed-tools: ${allow}\n${deny ? `disallowed-tools: ${deny}\n` : ""}---\nMain.\n`;
  const on = (dir: string, p: string) => existsSync(path.join(dir, p));

  it("a substitution inside ${…} and a value evaluated as arithmetic are refused, and nothing runs", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, { "agent.md": agent("Bash(git:*), Bash(echo:*)", "Bash(rm:*)"), victim: "v" });
    fake.push(
      call("Bash", { command: "git status ${X:-`touch pwned; rm victim`}" }),
      call("Bash", { command: 'git status "${X#$(touch pwned2)}"' }),
      call("Bash", { command: "a='x[$(touch pwned3; rm victim)]'; echo $((a))" }),
      call("Bash", { command: "X='$(touch pwned4)'; echo ${X@P}" }),
      text("done"),
    );
    await run(["go"]);
    for (let i = 1; i <= 4; i++) expect(told(i)).toContain("cannot be judged");
    expect(["pwned", "pwned2", "pwned3", "pwned4"].filter((p) => on(dir, p))).toEqual([]);
    expect(on(dir, "victim")).toBe(true);
  });

  it("git cannot be made to run a program, or push under an alias, where Bash has a deny pattern", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, { "agent.md": agent("Bash(git:*)", "Bash(rm:*), Bash(git push:*)"), victim: "v" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    fake.push(
      call("Bash", { command: "git config alias.x '!rm victim'" }),
      call("Bash", { command: "git x" }),
      call("Bash", { command: "git ls-remote --upload-pack='rm victim; git-upload-pack' ." }),
      call("Bash", { command: "git p origin HEAD:main" }),
      text("done"),
    );
    await run(["go"]);
    for (let i = 1; i <= 4; i++) expect(told(i)).toContain("cannot be judged");
    expect(on(dir, "victim")).toBe(true);
    expect(
      execFileSync("git", ["config", "--local", "--list"], { cwd: dir, encoding: "utf8" }),
    ).not.toContain("alias.");
  });

  it("a relative redirection after cd is refused: it would land outside what Write allows", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    const outside = path.join(dir, "elsewhere");
    mkdirSync(path.join(outside, "out"), { recursive: true });
    const project = path.join(dir, "project");
    writeFiles(project, { "agent.md": agent("Bash(cd:*), Bash(echo:*), Write(out/**)"), "out/keep": "" });
    fake.push(
      call("Bash", { command: `cd ${outside} && echo pwned > out/x` }),
      call("Bash", { command: "echo fine > out/y" }),
      text("done"),
    );
    await run(["go"], project);
    expect(told(1)).toContain("after a command that may change the working folder");
    expect(told(2)).toBe("[exit code 0]");
    expect(existsSync(path.join(outside, "out", "x"))).toBe(false);
    expect(existsSync(path.join(project, "out", "y"))).toBe(true);
  });

  it("a command body's ```! block is judged the same way", async ({ dir, fake, run }) => {
    writeFiles(dir, {
      "agent.md": agent("Bash(git:*)", "Bash(rm:*)"),
      "commands/hide.md": "---\nallowed-tools: Bash(git:*)\n---\n```!\ngit status ${X:-`touch pwned`}\n```\n",
    });
    fake.push(text("never asked"));
    const r = await run(["/hide"]);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(0);
    expect(r.stdout).toContain("cannot be judged");
    expect(on(dir, "pwned")).toBe(false);
  });
});
