import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { test } from "../support/fixture.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { drain } from "../support/runs.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";

/**
 * `RunnerOptions.restricted`, as openProject sets it for a folder whose code is not trusted: the
 * project's hooks, MCP servers, settings env and baseUrl are held back; the user's own and what a
 * caller gives in code are not; the lists bind as ever. Without it, a library caller's project runs
 * as given.
 */

const it = test.extend<{ code: string }>({
  code: async ({ dir, project }, use) => {
    project({
      // A baseUrl where nothing answers: a run that used it would fail.
      "agent.md":
        "---\nallowed-tools: Read, Bash(echo:*), Task, mcp__root__whoami, mcp__inl__whoami\nbaseUrl: http://127.0.0.1:9\nmcpServers:\n  - inl:\n      command: node\n      args: [nothing.mjs]\n---\nMain.\n",
      "agents/sub.md":
        "---\nname: sub\ndescription: Sub.\ntools: Bash(echo:*)\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: touch sub-hook.ran\n---\nSub.\n",
      ".mcp.json": mcpJson({ root: stdioServer("basic", path.join(dir, "srv.starts")) }),
      ".claude/settings.json": JSON.stringify({
        permissions: { allow: ["Bash(echo:*)"], deny: ["Read(./secret.txt)"] },
        env: { FLAG: "from-project" },
        hooks: {
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "touch post.ran" }] }],
        },
      }),
      // The user's own settings: their hook is theirs, and runs.
      "home/.claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "touch user-hook.ran" }] }],
        },
      }),
    });
    await use(dir);
  },
});

const marked = (dir: string, name: string) => existsSync(path.join(dir, name));

describe("a restricted runner", () => {
  it("applies no project settings env, uses no baseUrl of agent.md, starts no project MCP server, runs no project hook — and the user's hook runs", async ({
    code,
    fake,
  }) => {
    fake.push(
      call("Bash", { command: 'echo "[$FLAG]"' }),
      call("Read", { file_path: path.join(code, "secret.txt") }),
      text("done"),
    );
    const runner = createRunner({
      projectDir: code,
      restricted: true,
      env: {
        HOME: path.join(code, "home"),
        PATH: process.env.PATH ?? "",
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: fake.url,
      },
    });
    try {
      const { result } = await drain(runner.run("go"));
      expect(result.outcome).toBe("done");
      expect(resultText(resultsSent(fake, 1)[0])).toContain("[]");
      expect(resultText(resultsSent(fake, 2)[0])).toMatch(/denied/i);
      expect(toolsOf(fake, 0).filter((t) => t.startsWith("mcp__"))).toEqual([]);
      expect(marked(code, "srv.starts")).toBe(false);
      expect(marked(code, "post.ran")).toBe(false);
      expect(marked(code, "user-hook.ran")).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it("refuses a subagent's call its unrun PreToolUse hook would judge, naming the hook and agentmd trust", async ({
    code,
    fake,
  }) => {
    fake.push(
      call("Task", { subagent_type: "sub", description: "d", prompt: "p" }),
      call("Bash", { command: "echo hi" }),
      text("sub done"),
      text("done"),
    );
    const runner = createRunner({
      projectDir: code,
      restricted: true,
      userDir: false,
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, PATH: process.env.PATH ?? "" },
    });
    try {
      await drain(runner.run("go"));
      const told = resultText(resultsSent(fake, 2)[0]);
      expect(told).toContain("PreToolUse hook 'touch sub-hook.ran'");
      expect(told).toContain("agentmd trust");
      expect(marked(code, "sub-hook.ran")).toBe(false);
    } finally {
      await runner.close();
    }
  });

  it("without restricted, a library caller's project runs as given: its env, its hooks, its servers", async ({
    code,
    fake,
  }) => {
    fake.push(call("Bash", { command: 'echo "[$FLAG]"' }), text("done"));
    const runner = createRunner({
      projectDir: code,
      userDir: false,
      env: { ANTHROPIC_API_KEY: "k", PATH: process.env.PATH ?? "" },
      model: { baseURL: fake.url },
    });
    try {
      await drain(runner.run("go"));
      expect(resultText(resultsSent(fake, 1)[0])).toContain("[from-project]");
      expect(toolsOf(fake, 0)).toContain("mcp__root__whoami");
      expect(marked(code, "post.ran")).toBe(true);
    } finally {
      await runner.close();
    }
  });
});
