import path from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "../support/cli.js";
import { fixture, REPO_ROOT, tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

describe("agentmd check", () => {
  it("prints diagnostics as compilers do, then a summary, and exits 1 on an error", async () => {
    const r = await runCli(["check", "."], { cwd: fixture("misspelled-list-keys") });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[2]).toBe(
      "agents/allowedTools.md:4:1: error: unknown key 'allowedTools'; did you mean 'allowed-tools'? A misspelled tool list would run unrestricted, so this file is not loaded [misspelled-list-key]",
    );
    expect(lines.at(-1)).toBe(
      "checked 6 files: 0 subagents (5 failed), 0 commands (1 failed); 6 errors, 0 warnings, 0 info",
    );
  });

  it("exits 0 on warnings, and 1 on warnings with --strict", async () => {
    const cwd = fixture("unquoted-colon");
    expect((await runCli(["check", "."], { cwd })).code).toBe(0);
    expect((await runCli(["check", ".", "--strict"], { cwd })).code).toBe(1);
  });

  it("checks files and folders given as paths, relative to the working folder", async () => {
    const r = await runCli(["check", "tools-star/agents/anything.md", "crlf"], { cwd: fixture(".") });
    expect(r.stdout).toContain("tools-star/agents/anything.md:4:1: warning:");
    expect(r.stdout).toContain("crlf/agents/crlf-agent.md:5:1: warning: unknown key 'colour'");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      "checked 2 files: 2 subagents; 0 errors, 2 warnings, 0 info",
    );
  });

  it("prints a stable JSON report with --json; of two same-named subagents the second is shadowed", async () => {
    const r = await runCli(["check", ".", "--json"], { cwd: fixture("duplicate-names") });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toEqual({
      version: 1,
      summary: {
        files: 2,
        surfaces: { agent: { loaded: 1, failed: 0, documentation: 0, shadowed: 1 } },
        severities: { error: 0, warning: 1, info: 0 },
      },
      files: [
        { file: "agents/a.md", surface: "agent", outcome: "loaded", name: "twin" },
        { file: "agents/nested/b.md", surface: "agent", outcome: "shadowed" },
      ],
      diagnostics: [
        {
          file: "agents/nested/b.md",
          line: 1,
          column: 1,
          severity: "warning",
          code: "duplicate-name",
          surface: "agent",
          message:
            "subagent 'twin' is also defined in agents/a.md, which comes first and is the one used; this one is not (rename one to use both)",
        },
      ],
    });
    const text = await runCli(["check", "."], { cwd: fixture("duplicate-names") });
    expect(text.stdout).toContain("checked 2 files: 1 subagent (1 shadowed); 0 errors, 1 warning, 0 info");
  });

  it("colours only on a terminal without NO_COLOR", async () => {
    const cwd = fixture("tools-star");
    expect((await runCli(["check", "."], { cwd, tty: true })).stdout).toContain("\x1b[");
    expect((await runCli(["check", "."], { cwd, tty: true, env: { NO_COLOR: "1" } })).stdout).not.toContain(
      "\x1b[",
    );
    expect((await runCli(["check", "."], { cwd, tty: false })).stdout).not.toContain("\x1b[");
  });

  it("finds the project root above the working folder", async () => {
    const r = await runCli(["check"], { cwd: path.join(REPO_ROOT, "agents") });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(
      "checked 5 files: 1 main agent, 1 subagent, 1 skill, 2 commands; 0 errors, 0 warnings, 0 info",
    );
  });

  it("answers bad usage with exit 2 and a hint", async () => {
    const unknownFlag = await runCli(["check", "--bogus"], { cwd: REPO_ROOT });
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("--bogus");
    const unknownCommand = await runCli(["frobnicate"], { cwd: REPO_ROOT });
    expect([unknownCommand.code, unknownCommand.stderr.split("\n")[0]]).toEqual([
      2,
      "agentmd: unknown command 'frobnicate' (for one prompt: agentmd -p 'frobnicate'; for a conversation: agentmd chat)",
    ]);
    const near = await runCli(["chekc"], { cwd: REPO_ROOT });
    expect(near.stderr).toContain("unknown command 'chekc'; did you mean 'check'?");
    const nearFlag = await runCli(["check", "--stirct"], { cwd: REPO_ROOT });
    expect(nearFlag.stderr).toContain("unknown option '--stirct'; did you mean '--strict'?");
  });

  it("prints help", async () => {
    const r = await runCli(["check", "--help"], { cwd: REPO_ROOT });
    expect([r.code, r.stdout.split("\n")[0]]).toEqual([
      0,
      "Usage: agentmd check [PATH…] [--json] [--strict]",
    ]);
  });

  it("runs as a separate process from the built bin, as a newcomer runs it", () => {
    const ok = runBin(["check"], { cwd: REPO_ROOT });
    expect([ok.code, ok.stdout.trim(), ok.stderr]).toEqual([
      0,
      "checked 5 files: 1 main agent, 1 subagent, 1 skill, 2 commands; 0 errors, 0 warnings, 0 info",
      "",
    ]);
    const bad = runBin(["check", "agents"], { cwd: fixture("template-values") });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      "agents/template.md:2:7: error: 'name' is an unfilled template placeholder '{{AGENT_NAME}}'",
    );
  });

  // The built CLI runs `check` from its own file (dist/bundle/check.cjs, loaded with a code cache on
  // Node 20): it must answer every command line exactly as main() does.
  it.each([
    ["a project", "corpus-sample/anthropics__claude-plugins-official", ["check"]],
    ["--strict and a path", "corpus-sample/anthropics__claude-plugins-official", ["check", "--strict", "."]],
    ["--json", "corpus-sample/wshobson__agents", ["check", "--json"]],
    ["loose files", "definitions", ["check", "template-values/agents", "crlf"]],
    ["--help", "definitions", ["check", "--help"]],
    ["an unknown option", "definitions", ["check", "--stirct"]],
    ["a missing path", "definitions", ["check", "no/such/folder"]],
  ])("the built CLI's check answers %s as main() does", async (_, dir, argv) => {
    const home = tempDir();
    try {
      const env = { HOME: home.dir };
      const cwd = path.join(REPO_ROOT, "test/fixtures", dir);
      const built = runBin(argv, { cwd, env });
      expect(built).toEqual(await runCli(argv, { cwd, env }));
    } finally {
      home.cleanup();
    }
  });

  it("the built CLI's check judges a body's !command with arguments, which needs the bash grammar", () => {
    const t = tempDir();
    try {
      writeFiles(t.dir, {
        "agent.md": "---\nname: main\ndescription: Answers.\nallowed-tools: Read\n---\nYou answer.\n",
        "commands/test.md": "---\ndescription: Tests.\n---\n!`npm test $1`\n",
      });
      const r = runBin(["check"], { cwd: t.dir, env: { HOME: t.dir } });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("commands/test.md:4:1: error: the command !`npm test $1` would be refused");
    } finally {
      t.cleanup();
    }
  });
});
