import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { inTerminal } from "../support/terminal.js";
import { writeFiles } from "../support/tools.js";

/**
 * Trust per project folder, through the built CLI with HOME in a temporary folder: a folder whose
 * code (a custom tool, an MCP server, a settings hook) was never trusted runs none of it, says so
 * once, and keeps its lists; `agentmd trust --yes` lets it run; a changed hook script stops it again.
 * The untrusted run and chat's question cross the built CLI; the other rows run the CLI's main() in
 * this process.
 */

const TOOL = `import { writeFileSync } from "node:fs";
import { defineTool, ok } from "agentmd";
writeFileSync(new URL("../tool.imported", import.meta.url), "1");
export default defineTool({ name: "Mark", description: "Marks.", inputSchema: { type: "object", properties: {} }, execute: async () => ok("marked") });
`;
const GUARD = '#!/bin/sh\ntouch "$CLAUDE_PROJECT_DIR/hook.ran"\nexit 0\n';

const it = test.extend<{ code: string }>({
  code: async ({ dir, project }, use) => {
    project({
      "agent.md":
        "---\nallowed-tools: Read, Write(/notes/**), Bash(echo:*), Mark, mcp__srv__whoami\n---\nMain.\n",
      "tools/mark.mjs": TOOL,
      ".mcp.json": mcpJson({ srv: stdioServer("basic", path.join(dir, "srv.starts")) }),
      ".claude/hooks/guard.sh": GUARD,
      ".claude/settings.json": JSON.stringify({
        permissions: { allow: ["Bash(echo:*)", "Mark", "mcp__srv__whoami"], deny: ["Bash(echo secret:*)"] },
        env: { PROJECT_FLAG: "1" },
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: "bash .claude/hooks/guard.sh" }] },
          ],
        },
      }),
    });
    await use(dir);
  },
});

const marks = (dir: string) =>
  ["tool.imported", "hook.ran", "srv.starts"].filter((m) => existsSync(path.join(dir, m)));
const count = (s: string, part: string) => s.split(part).length - 1;

describe("a folder whose code is not trusted", () => {
  it("runs none of its code, says so once naming agentmd trust, and its lists still bind", async ({
    code,
    fake,
    cli,
  }) => {
    fake.push(
      call("Bash", { command: "echo hi" }),
      call("Write", { file_path: path.join(code, "out.txt"), content: "x" }),
      call("Bash", { command: "echo secret" }),
      call("Mark", {}),
      text("done"),
    );
    const r = await cli(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(marks(code)).toEqual([]);
    expect(count(r.stderr, "is not trusted")).toBe(1);
    expect(count(r.stderr, "agentmd trust")).toBe(1);
    expect(r.stderr).toContain("hook PreToolUse (Bash): bash .claude/hooks/guard.sh");
    expect(r.stderr).toContain("MCP server 'srv'");
    expect(r.stderr).toContain("custom tool module tools/mark.mjs");
    expect(toolsOf(fake, 0)).not.toContain("Mark");
    expect(toolsOf(fake, 0)).not.toContain("mcp__srv__whoami");
    const told = (i: number) => resultText(resultsSent(fake, i)[0]);
    expect(told(1)).toContain("PreToolUse hook 'bash .claude/hooks/guard.sh'");
    expect(told(1)).toContain("agentmd trust");
    expect(told(2)).not.toContain("marked");
    expect(told(2)).toMatch(/not allowed|denied/i);
    expect(told(3)).toMatch(/denied/i);
    expect(told(3)).not.toContain("guard.sh");
    expect(told(4)).not.toContain("marked");
  });

  it("refuses a run whose allowed tools are all the project's own, saying the folder is not trusted", async ({
    code,
    fake,
    main,
  }) => {
    writeFiles(code, { "agent.md": "---\nallowed-tools: Mark, mcp__srv__whoami\n---\nMain.\n" });
    const r = await main(["-p", "go"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("no entry of the allow-list names a tool that exists in this run");
    expect(r.stderr).toContain(
      "the folder is not trusted, so its custom tools and MCP servers are not offered",
    );
    expect(fake.requests).toHaveLength(0);
    expect(marks(code)).toEqual([]);
  });

  it("runs its code after agentmd trust --yes, and stops again when the hook's script changes", async ({
    code,
    fake,
    main,
  }) => {
    const trusted = await main(["trust", "--yes"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("trusted:");
    fake.push(
      call("Bash", { command: "echo hi" }),
      call("Mark", {}),
      call("mcp__srv__whoami", {}),
      text("done"),
    );
    const r = await main(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("trust");
    expect(marks(code)).toEqual(["tool.imported", "hook.ran", "srv.starts"]);
    expect(resultText(resultsSent(fake, 2)[0])).toBe("marked");
    expect(startsOf(path.join(code, "srv.starts"))).toBe(1);

    for (const m of ["tool.imported", "hook.ran", "srv.starts"]) rmSync(path.join(code, m));
    writeFiles(code, { ".claude/hooks/guard.sh": `${GUARD}# one more line\n` });
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const again = await main(["-p", "go"]);
    expect(again.code).toBe(0);
    expect(marks(code)).toEqual([]);
    expect(again.stderr).toContain("changed since it was trusted");
    expect(again.stderr).toContain("~ file .claude/hooks/guard.sh");
    expect(again.stderr).not.toContain("custom tool module tools/mark.mjs");
    expect(resultText(resultsSent(fake, 5)[0])).toContain("agentmd trust");
  });

  it("a changed hook command is named as what was added and removed", async ({ code, fake, main }) => {
    await main(["trust", "--yes"]);
    const settings = JSON.parse(readFileSync(path.join(code, ".claude/settings.json"), "utf8"));
    settings.hooks.PreToolUse[0].hooks[0].command = "bash .claude/hooks/guard.sh --loud";
    writeFiles(code, { ".claude/settings.json": JSON.stringify(settings) });
    fake.push(text("done"));
    const r = await main(["-p", "go"]);
    expect(r.stderr).toContain("+ hook PreToolUse (Bash): bash .claude/hooks/guard.sh --loud");
    expect(r.stderr).toContain("- hook PreToolUse (Bash): bash .claude/hooks/guard.sh  —");
    expect(marks(code)).toEqual([]);
  });
});

describe("agentmd trust", () => {
  it("without a terminal and without --yes lists the code and exits 1 saying to pass --yes", async ({
    code,
    main,
  }) => {
    const r = await main(["trust"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("is not trusted");
    expect(r.stdout).toContain("settings env");
    expect(r.stdout).toContain("file .claude/hooks/guard.sh (run by hook PreToolUse (Bash)");
    expect(r.stderr).toContain("pass --yes");
    expect(existsSync(path.join(code, "home", ".agentmd", "trust.json"))).toBe(false);
    expect(marks(code)).toEqual([]);
  });

  it("--list names the trusted folders, --revoke takes the trust back", async ({ code, main }) => {
    expect((await main(["trust", "--list"])).stdout).toBe("no folder is trusted\n");
    await main(["trust", "--yes"]);
    expect((await main(["trust", "--list"])).stdout).toContain(`${code}  (trusted `);
    expect((await main(["trust"])).stdout).toContain("is trusted, with this code");
    const revoked = await main(["trust", "--revoke"]);
    expect(revoked.stdout).toContain("trust removed");
    expect((await main(["trust", "--list"])).stdout).toBe("no folder is trusted\n");
    expect((await main(["trust", "--yes", "--list"])).code).toBe(2);
  });

  it("a project of only markdown and lists needs no trust and never sees a notice", async ({
    project,
    fake,
    main,
  }) => {
    project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      "agents/r.md": "---\ndescription: R\n---\nR.\n",
    });
    fake.push(text("done"));
    const r = await main(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const t = await main(["trust"]);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain("holds no repository code");
  });
});

describe("agentmd chat in a folder that is not trusted", () => {
  it("asks once at the start: yes trusts the folder and its code runs", async ({ code, fake, env }) => {
    fake.push(call("Mark", {}), text("all marked"));
    const r = await inTerminal(
      [
        { type: "expect", text: "Trust this folder and run its code? [y/N]" },
        { type: "send", text: "y\r" },
        { type: "expect", text: "› " },
        { type: "send", text: "mark it\r" },
        { type: "expect", text: "all marked" },
        { type: "send", text: "/exit\r" },
      ],
      code,
      { ...env },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(r.output).toContain("custom tool module tools/mark.mjs");
    expect(marks(code)).toContain("tool.imported");
    expect(existsSync(path.join(code, "home", ".agentmd", "trust.json"))).toBe(true);
  });

  it("no goes on restricted: none of the code runs, and nothing is recorded", async ({ code, fake, env }) => {
    fake.push(call("Bash", { command: "echo hi" }), text("refused, fine"));
    const r = await inTerminal(
      [
        { type: "expect", text: "[y/N]" },
        { type: "send", text: "n\r" },
        { type: "expect", text: "going on restricted" },
        { type: "send", text: "try it\r" },
        { type: "expect", text: "refused, fine" },
        { type: "send", text: "/exit\r" },
      ],
      code,
      { ...env },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(resultText(resultsSent(fake, 1)[0])).toContain("agentmd trust");
    expect(marks(code)).toEqual([]);
    expect(existsSync(path.join(code, "home", ".agentmd", "trust.json"))).toBe(false);
  });
});

describe("the trust command's usage", () => {
  it("a misspelled command names trust", async ({ dir }) => {
    const r = await runCli(["trsut"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("did you mean 'trust'?");
  });
});
