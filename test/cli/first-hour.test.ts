import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin, runCli } from "../support/cli.js";
import { test as e2e } from "../support/fixture.js";
import { tempDir } from "../support/fixtures.js";
import { text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * What a newcomer meets in the first hour. `tools` and the first `check` cross the built bin; the
 * --json forms and the other checks run the CLI's main() in this process.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(files: Record<string, string>): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  writeFiles(dir, files);
  return dir;
}

describe("agentmd tools lists what a run offers", () => {
  it("does not list a tool a list names when no tool of a run has that name", async () => {
    const cwd = project({
      "agent.md": "---\nallowed-tools: Read, NotebookRead, AskUserQuestion, Bash(git:*)\n---\nYou help.\n",
    });
    const r = runBin(["tools"], { cwd, env: { HOME: cwd } });
    expect(r.code).toBe(0);
    const offered = r.stdout.slice(
      r.stdout.indexOf("offered to the model:"),
      r.stdout.indexOf("removed along"),
    );
    expect(offered).toMatch(/^ {2}Read /m);
    expect(offered).not.toContain("NotebookRead");
    expect(offered).not.toContain("AskUserQuestion");
    expect(r.stdout).toContain(
      "named in a list, but no tool of a run has the name: NotebookRead, AskUserQuestion\n",
    );
    const json = JSON.parse((await runCli(["tools", "--json"], { cwd, env: { HOME: cwd } })).stdout);
    expect(json.offered.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash"]);
    expect(json.notProvided).toEqual(["NotebookRead", "AskUserQuestion"]);
  });
});

describe("skills load as the Agent Skills client guide says", () => {
  it("a name that breaks the rule is a warning and the folder's name is used; a missing description keeps it out", async () => {
    const cwd = project({
      "skills/accessibility-auditor/SKILL.md":
        "---\nname: Accessibility Auditor\ndescription: Audits pages for accessibility.\n---\nAudit.\n",
      "skills/unnamed/SKILL.md": "---\ndescription: Has no name.\n---\nBody.\n",
      "skills/silent/SKILL.md": "---\nname: silent\n---\nBody.\n",
    });
    const r = runBin(["check"], { cwd, env: { HOME: cwd } });
    expect(r.stdout).toContain(
      "skills/accessibility-auditor/SKILL.md:2:7: warning: skill name 'Accessibility Auditor' breaks the Agent Skills rule (lowercase letters, digits and single hyphens, at most 64 characters), so it is named by its folder: 'accessibility-auditor' [skill-name]",
    );
    expect(r.stdout).toContain(
      "skills/unnamed/SKILL.md:1:1: warning: a skill without a 'name' is named by its folder: 'unnamed' [skill-name]",
    );
    expect(r.stdout).toMatch(/skills\/silent\/SKILL\.md:1:1: error: missing required key 'description'/);
    expect(r.stdout).toContain("2 skills (1 failed)");
    const json = JSON.parse((await runCli(["check", "--json"], { cwd, env: { HOME: cwd } })).stdout);
    expect(json.files.map((f: { name?: string }) => f.name).sort()).toEqual([
      "accessibility-auditor",
      "unnamed",
      undefined,
    ]);
  });

  it("of two subagents with one name in different folders, the first in path order is used and the other is a warning", async () => {
    const cwd = project({
      ".claude/agents/debugger.md": "---\nname: debugger\ndescription: Top.\n---\nTop.\n",
      ".claude/agents/external/debugger.md": "---\nname: debugger\ndescription: Copy.\n---\nCopy.\n",
    });
    const r = await runCli(["check"], { cwd, env: { HOME: cwd } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      ".claude/agents/external/debugger.md:1:1: warning: subagent 'debugger' is also defined in .claude/agents/debugger.md, which comes first and is the one used; this one is not (rename one to use both) [duplicate-name]",
    );
    expect(r.stdout).toContain("1 subagent (1 shadowed)");
  });
});

describe("the $0 warning", () => {
  it("fires on a positional $0, not on money", async () => {
    const cwd = project({
      "commands/money.md":
        "---\ndescription: Sums\n---\nWorst case: $0.5M profit, or $0,50 a share; fees $0.10-$3.50.\n",
      "commands/script.md": "---\ndescription: Runs\n---\nCosts $0.5M. Run the script named $0 with $1.\n",
    });
    const r = await runCli(["check"], { cwd, env: { HOME: cwd } });
    expect(r.stdout).not.toContain("commands/money.md");
    expect(r.stdout).toContain("commands/script.md:4:35: warning: '$0' is not an argument");
  });
});

describe("run --agent and chat's resumes", () => {
  e2e(
    "run --agent nosuch is bad usage, as run /nosuch is: exit 2, nothing sent, no session",
    async ({ dir, project, fake, cli }) => {
      project({
        "agent.md": "---\nallowed-tools: Read\n---\nx\n",
        "agents/reviewer.md": "---\nname: reviewer\ndescription: R.\n---\nR.\n",
      });
      const r = await cli(["run", "--agent", "reviewr", "hi"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "agentmd: --agent: no subagent named 'reviewr'; did you mean 'reviewer'?; loaded: reviewer\nRun 'agentmd --help' for usage.\n",
      );
      expect(fake.requests).toHaveLength(0);
      expect(existsSync(path.join(dir, ".agentmd", "sessions"))).toBe(false);
    },
  );

  e2e(
    "chat -c and -r ID show the conversation so far; /help shows the REPL's commands, not chat --help",
    async ({ project, fake, cli }) => {
      project({ "agent.md": "---\nallowed-tools: Read\n---\nx\n" });
      fake.push(text("The answer is 42."));
      const first = await cli(["run", "-p", "--output-format", "json", "what is the answer?"]);
      const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
      for (const args of [["-c"], ["-r", id]]) {
        const r = await cli(args, { input: "/exit\n" });
        expect(r.stdout).toContain(`continuing ${id}`);
        expect(r.stdout).toContain("what is the answer?");
        expect(r.stdout).toContain("The answer is 42.");
      }
      const help = await cli(["chat"], { input: "/help\n/exit\n" });
      expect(help.stdout).toContain("/resume [ID]    list recent sessions, or continue one");
      expect(help.stdout).toContain("agentmd chat --help");
      expect(help.stdout).not.toContain("Usage: agentmd [chat]");
      expect(help.stdout).not.toContain("Options:");
    },
  );
});
