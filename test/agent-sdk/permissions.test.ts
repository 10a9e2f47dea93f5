import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { initOf, ofType, sdkQuery } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";

/**
 * The SDK's options are callers like any other: agent.md and .claude/settings.json still bind,
 * whatever allowedTools, tools or permissionMode say.
 */
describe("SDK permission options under agent.md and the settings", () => {
  it("allowedTools ['Bash'] never lifts agent.md's Bash(echo:*): the call is denied, said and listed", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(call("Bash", { command: "touch pwned" }, "toolu_1"), text("done"));
    const run = await sdkQuery("go", {
      cwd: dir,
      env,
      allowedTools: ["Bash"],
      permissionMode: "bypassPermissions",
    });
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultsSent(fake, 1)[0]?.is_error).toBe(true);
    expect(ofType(run, "system", "permission_denied")[0]).toMatchObject({
      tool_name: "Bash",
      tool_use_id: "toolu_1",
    });
    const [result] = ofType(run, "result");
    expect(result?.permission_denials).toEqual([
      { tool_name: "Bash", tool_use_id: "toolu_1", tool_input: { command: "touch pwned" } },
    ]);
  });

  it("a settings deny binds over the SDK's allowedTools", async ({ dir, env, fake, project }) => {
    project({
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(echo secret:*)"] } }),
    });
    fake.push(call("Bash", { command: "echo secret" }), text("done"));
    const run = await sdkQuery("go", { cwd: dir, env, allowedTools: ["Bash"] });
    expect(run.error, run.stderr).toBeUndefined();
    expect(resultText(resultsSent(fake, 1)[0])).toMatch(/denied/i);
    expect(ofType(run, "result")[0]?.permission_denials).toHaveLength(1);
  });

  it("disallowedTools and tools take tools away: they are not offered", async ({ dir, env, fake }) => {
    fake.push(text("one"), text("two"));
    await sdkQuery("a", { cwd: dir, env, disallowedTools: ["Bash"] });
    await sdkQuery("b", { cwd: dir, env, tools: ["Read", "Grep"] });
    expect(toolsOf(fake, 0)).toContain("Read");
    expect(toolsOf(fake, 0)).not.toContain("Bash");
    expect(toolsOf(fake, 1)).toEqual(["Grep", "Read"]);
  });

  it("plan mode refuses a Write; acceptEdits runs it; dontAsk refuses what is not pre-approved", async ({
    dir,
    env,
    fake,
  }) => {
    const write = (name: string) => call("Write", { file_path: path.join(dir, name), content: "x" });
    fake.push(
      write("plan.txt"),
      text("ok"),
      write("edits.txt"),
      text("ok"),
      // Not a read-only command (those run unasked in every mode but plan's refusal of writes).
      call("Bash", { command: "touch made.txt" }),
      text("ok"),
    );
    const plan = await sdkQuery("w", { cwd: dir, env, permissionMode: "plan" });
    const edits = await sdkQuery("w", { cwd: dir, env, permissionMode: "acceptEdits" });
    const dontAsk = await sdkQuery("b", { cwd: dir, env, permissionMode: "dontAsk" });
    expect(initOf(plan)?.permissionMode).toBe("plan");
    expect(existsSync(path.join(dir, "plan.txt"))).toBe(false);
    expect(resultText(resultsSent(fake, 1)[0])).toMatch(/plan mode/);
    expect(existsSync(path.join(dir, "edits.txt"))).toBe(true);
    expect(ofType(edits, "result")[0]?.permission_denials).toEqual([]);
    expect(initOf(dontAsk)?.permissionMode).toBe("dontAsk");
    expect(ofType(dontAsk, "result")[0]?.permission_denials).toHaveLength(1);
    expect(existsSync(path.join(dir, "made.txt"))).toBe(false);
  });
});
