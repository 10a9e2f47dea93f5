import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";

/** The `-p` flags wrappers of Claude Code pass, as Claude Code spells them, `--name=value` or `--name value`. */
const it = test.extend<{ claude: (args: string[]) => Promise<CliRun> }>({
  claude: async ({ dir, env }, use) => {
    await use((args) => runCli(args, { cwd: dir, env: { ...env } }));
  },
});

const resultOf = (r: CliRun) =>
  JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;

describe("the wrapper flags of -p", () => {
  it("--tools leaves only the tools named, in either spelling", async ({ fake, claude }) => {
    fake.push(text("a"), text("b"));
    expect((await claude(["-p", "--tools=Read,Grep", "x"])).code).toBe(0);
    expect((await claude(["-p", "--tools", "Read", "x"])).code).toBe(0);
    expect(toolsOf(fake, 0)).toEqual(["Grep", "Read"]);
    expect(toolsOf(fake, 1)).toEqual(["Read"]);
  });

  it("--dangerously-skip-permissions is bypass mode, still under agent.md's list", async ({
    dir,
    fake,
    claude,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(call("Bash", { command: "touch pwned" }), text("done"));
    const r = await claude(["-p", "--dangerously-skip-permissions", "--output-format=json", "go"]);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultOf(r).permission_denials).toHaveLength(1);
  });

  it("--settings adds deny rules over the files'", async ({ fake, claude }) => {
    fake.push(call("Bash", { command: "echo hi" }), text("ok"));
    const deny = JSON.stringify({ permissions: { deny: ["Bash(echo:*)"] } });
    await claude(["-p", "--settings", deny, "--allowedTools=Bash", "go"]);
    expect(resultText(resultsSent(fake, 1)[0])).toMatch(/denied/i);
  });

  it("--add-dir lets reads in that folder run without asking", async ({ fake, claude }) => {
    const other = mkdtempSync(path.join(tmpdir(), "agentmd-add-dir-"));
    try {
      writeFileSync(path.join(other, "notes.txt"), "NOTES\n");
      const read = () => call("Read", { file_path: path.join(other, "notes.txt") });
      fake.push(read(), text("no"), read(), text("ok"));
      await claude(["-p", "read"]);
      await claude(["-p", `--add-dir=${other}`, "read"]);
      expect(resultText(resultsSent(fake, 1)[0])).not.toContain("NOTES");
      expect(resultText(resultsSent(fake, 3)[0])).toContain("NOTES");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("--session-id names the session; --no-session-persistence writes none", async ({
    dir,
    fake,
    claude,
  }) => {
    fake.push(text("one"), text("two"));
    const named = await claude(["-p", "--session-id=chosen-id-1", "--output-format=json", "x"]);
    expect(resultOf(named).session_id).toBe("chosen-id-1");
    expect(existsSync(path.join(dir, ".agentmd/sessions/chosen-id-1.jsonl"))).toBe(true);
    const unkept = await claude(["-p", "--no-session-persistence", "--output-format=json", "y"]);
    const id = String(resultOf(unkept).session_id);
    expect(existsSync(path.join(dir, `.agentmd/sessions/${id}.jsonl`))).toBe(false);
  });

  it("--fork-session goes on from the session in a new one", async ({ fake, claude }) => {
    fake.push(text("REMEMBER"), text("forked"));
    await claude(["-p", "--session-id", "base-1", "x"]);
    const r = await claude([
      "-p",
      "--resume=base-1",
      "--fork-session",
      "--session-id=fork-1",
      "--output-format=json",
      "y",
    ]);
    expect(resultOf(r).session_id).toBe("fork-1");
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain("REMEMBER");
  });

  it.each([
    [["--input-format=xml"], /--input-format must be text or stream-json/],
    [["--setting-sources=user,team"], /'team' is not one of user, project, local/],
    [["--fork-session"], /--fork-session needs --resume/],
    [["--mcp-config", "{not json"], /--mcp-config: not valid JSON/],
    [["--mcp-config", "{}"], /needs an object "mcpServers"/],
    [["--tools=Bsah"], /'Bsah' is not a built-in tool/],
    [["--permission-prompt-tool=mcp__x__y"], /only 'stdio'/],
    [["--dangerously-skip-permissions", "--permission-mode=plan"], /cannot be used together/],
  ])("%j is a usage error that says why", async (flags, message) => {
    const r = await runCli(["-p", ...flags, "x"], { cwd: process.cwd(), env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
