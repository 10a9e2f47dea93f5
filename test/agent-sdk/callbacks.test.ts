import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { HookInput } from "@anthropic-ai/claude-agent-sdk";
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect } from "vitest";
import { z } from "zod";
import { initOf, ofType, sdkQuery } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";

/** What the program answers in-process: canUseTool, hook callbacks, SDK MCP servers. */
describe("canUseTool", () => {
  it("a deny's message reaches the model; the call does not run", async ({ dir, env, fake }) => {
    fake.push(call("Bash", { command: "touch pwned" }, "toolu_d"), text("ok"));
    const asked: string[] = [];
    const run = await sdkQuery("go", {
      cwd: dir,
      env,
      canUseTool: async (name, input, o) => {
        asked.push(`${name} ${(input as { command: string }).command} ${o.toolUseID}`);
        return { behavior: "deny", message: "NOT-THIS-ONE" };
      },
    });
    expect(asked).toEqual(["Bash touch pwned toolu_d"]);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultText(resultsSent(fake, 1)[0])).toContain("NOT-THIS-ONE");
    expect(ofType(run, "result")[0]?.permission_denials).toHaveLength(1);
  });

  it("allow with updatedInput runs the changed call, judged again by the lists", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(touch:*)"] } }) });
    fake.push(
      call("Bash", { command: "echo one > a.txt" }),
      call("Bash", { command: "echo two > b.txt" }),
      text("ok"),
    );
    let n = 0;
    await sdkQuery("go", {
      cwd: dir,
      env,
      canUseTool: async () => {
        n++;
        // The first is narrowed to another file; the second is turned into what the settings deny.
        const command = n === 1 ? "echo changed > c.txt" : "touch pwned";
        return { behavior: "allow", updatedInput: { command } };
      },
    });
    expect(existsSync(path.join(dir, "a.txt"))).toBe(false);
    expect(readFileSync(path.join(dir, "c.txt"), "utf8")).toBe("changed\n");
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultsSent(fake, 2)[0]?.is_error).toBe(true);
  });
});

describe("hooks as callbacks", () => {
  it("a PreToolUse deny blocks the call with its reason; PostToolUse sees the result", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(call("Bash", { command: "echo blocked" }), call("Bash", { command: "echo fine" }), text("ok"));
    const seen: HookInput[] = [];
    const run = await sdkQuery("go", {
      cwd: dir,
      env,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input) => {
                seen.push(input);
                const command = (input as { tool_input: { command: string } }).tool_input.command;
                return command.includes("blocked")
                  ? {
                      hookSpecificOutput: {
                        hookEventName: "PreToolUse",
                        permissionDecision: "deny",
                        permissionDecisionReason: "NO-BLOCKED",
                      },
                    }
                  : {};
              },
            ],
          },
        ],
        PostToolUse: [
          {
            hooks: [
              async (input) => {
                seen.push(input);
                return {};
              },
            ],
          },
        ],
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(resultText(resultsSent(fake, 1)[0])).toContain("NO-BLOCKED");
    expect(resultText(resultsSent(fake, 2)[0])).toMatch(/^fine\n/);
    expect(seen.map((s) => s.hook_event_name)).toEqual(["PreToolUse", "PreToolUse", "PostToolUse"]);
    expect(seen[0]).toMatchObject({ tool_name: "Bash", cwd: dir });
    expect((seen[2] as { tool_response?: unknown }).tool_response).toMatchObject({ is_error: false });
  });

  it("a hook's allow never widens agent.md's list", async ({ dir, env, fake, project }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(call("Bash", { command: "touch pwned" }), text("ok"));
    await sdkQuery("go", {
      cwd: dir,
      env,
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => ({
                hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
              }),
            ],
          },
        ],
      },
    });
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultsSent(fake, 1)[0]?.is_error).toBe(true);
  });
});

describe("in-process MCP servers", () => {
  const vault = () =>
    createSdkMcpServer({
      name: "vault",
      version: "1.0.0",
      tools: [
        tool("lookup_code", "Looks up a code", { key: z.string() }, async ({ key }) => ({
          content: [{ type: "text", text: `CODE-FOR-${key}-IS-4242` }],
        })),
      ],
    });

  it("offers mcp__vault__lookup_code and relays its calls to the program", async ({ dir, env, fake }) => {
    fake.push(call("mcp__vault__lookup_code", { key: "alpha" }), text("4242"));
    const run = await sdkQuery("code?", {
      cwd: dir,
      env,
      mcpServers: { vault: vault() },
      allowedTools: ["mcp__vault"],
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(toolsOf(fake, 0)).toContain("mcp__vault__lookup_code");
    expect(resultText(resultsSent(fake, 1)[0])).toBe("CODE-FOR-alpha-IS-4242");
    expect(initOf(run)?.mcp_servers).toEqual([{ name: "vault", status: "connected", source: "sdk" }]);
  });

  it("agent.md's list binds the SDK's server: a tool it does not name is not offered", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(call("mcp__vault__lookup_code", { key: "alpha" }), text("no"));
    await sdkQuery("code?", { cwd: dir, env, mcpServers: { vault: vault() }, allowedTools: ["mcp__vault"] });
    expect(toolsOf(fake, 0)).not.toContain("mcp__vault__lookup_code");
    expect(resultText(resultsSent(fake, 1)[0])).not.toContain("4242");
  });
});

describe("an in-process MCP tool that never answers", () => {
  const stuck = (timeout?: number) =>
    createSdkMcpServer({
      name: "slow",
      version: "1.0.0",
      ...(timeout !== undefined && { timeout }),
      tools: [tool("wait", "Never answers", {}, () => new Promise<never>(() => {}))],
    });

  it.for<[string, Record<string, string>, number | undefined]>([
    ["agent.md's mcpTimeout", { "agent.md": "---\nmcpTimeout: 1\n---\nBe brief.\n" }, undefined],
    ["the server's own timeout", {}, 1000],
  ])(
    "is cancelled after %s: the model gets an error saying so, and the run goes on",
    async ([, files, timeout], { dir, env, fake, project }) => {
      project(files);
      fake.push(call("mcp__slow__wait", {}), text("WENT-ON"));
      const run = await sdkQuery("wait", {
        cwd: dir,
        env,
        mcpServers: { slow: stuck(timeout) },
        allowedTools: ["mcp__slow"],
      });
      expect(run.error, run.stderr).toBeUndefined();
      const sent = resultsSent(fake, 1)[0];
      expect(sent?.is_error).toBe(true);
      expect(resultText(sent)).toMatch(/did not answer within 1 s, so the call was cancelled/);
      expect(ofType(run, "result")[0]).toMatchObject({ subtype: "success", result: "WENT-ON" });
    },
  );
});
