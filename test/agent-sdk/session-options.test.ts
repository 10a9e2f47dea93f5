import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { ofType, sdkQuery, userTurns } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { call, resultsSent, text, toolsOf } from "../support/script.js";

const systemOf = (fake: { requests: { body: { system?: unknown } }[] }, i: number) =>
  JSON.stringify(fake.requests[i]?.body.system ?? "");

describe("SDK session options", () => {
  it("maxTurns ends the turn with error_max_turns (and the query throws, as on Claude Code)", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(
      call("Bash", { command: "echo 1" }),
      call("Bash", { command: "echo 2" }),
      call("Bash", { command: "echo 3" }),
    );
    const run = await sdkQuery("loop", { cwd: dir, env, maxTurns: 2 });
    const [result] = ofType(run, "result");
    expect(result).toMatchObject({
      subtype: "error_max_turns",
      is_error: true,
      terminal_reason: "max_turns",
    });
    expect((result as { errors?: string[] }).errors?.length).toBe(1);
    expect(run.error).toBeDefined();
  });

  it("resume, forkSession and sessionId: the conversation goes on, in a new session when forked", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(text("REMEMBER-ME"), text("resumed"), text("forked"));
    const first = await sdkQuery("first", { cwd: dir, env, sessionId: "s-first-1" });
    expect(ofType(first, "result")[0]?.session_id).toBe("s-first-1");
    const resumed = await sdkQuery("again", { cwd: dir, env, resume: "s-first-1" });
    expect(ofType(resumed, "result")[0]?.session_id).toBe("s-first-1");
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain("REMEMBER-ME");
    const forked = await sdkQuery("fork", { cwd: dir, env, resume: "s-first-1", forkSession: true });
    const id = ofType(forked, "result")[0]?.session_id;
    expect(id).not.toBe("s-first-1");
    expect(JSON.stringify(fake.requests[2]?.body.messages)).toContain("REMEMBER-ME");
  });

  it("systemPrompt: a string replaces agent.md's body; the preset keeps it and appends", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBODY-OF-AGENT-MD\n" });
    fake.push(text("a"), text("b"), text("c"));
    await sdkQuery("x", { cwd: dir, env, systemPrompt: "GIVEN-PROMPT" });
    await sdkQuery("x", {
      cwd: dir,
      env,
      systemPrompt: { type: "preset", preset: "claude_code", append: "APPENDED" },
    });
    await sdkQuery("x", { cwd: dir, env });
    expect(systemOf(fake, 0)).toContain("GIVEN-PROMPT");
    expect(systemOf(fake, 0)).not.toContain("BODY-OF-AGENT-MD");
    expect(systemOf(fake, 1)).toMatch(/BODY-OF-AGENT-MD.*APPENDED/s);
    expect(systemOf(fake, 2)).toContain("BODY-OF-AGENT-MD");
  });

  it("agents in code are bound by caller ∩ callee, as file subagents", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read, Task, Bash(echo:*)\n---\nBe brief.\n" });
    fake.push(
      call("Task", { subagent_type: "reviewer", description: "review", prompt: "REVIEW-THIS" }, "toolu_task"),
      call("Bash", { command: "touch pwned" }),
      text("reviewed"),
      text("all done"),
    );
    const run = await sdkQuery("go", {
      cwd: dir,
      env,
      agents: { reviewer: { description: "Reviews.", prompt: "YOU-REVIEW", tools: ["Read", "Bash"] } },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(systemOf(fake, 1)).toContain("YOU-REVIEW");
    expect(toolsOf(fake, 1)).toEqual(["Bash", "Read"]);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultsSent(fake, 2)[0]?.is_error).toBe(true);
    const sub = ofType(run, "assistant").filter((m) => m.parent_tool_use_id === "toolu_task");
    expect(sub.length).toBeGreaterThan(0);
  });

  it("env replaces the environment and cwd is where tools run", async ({ dir, env, fake, project }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo:*)\n---\nBe brief.\n", "sub/.keep": "" });
    fake.push(call("Bash", { command: "echo $GIVEN_VAR $PWD" }), text("ok"));
    await sdkQuery("go", { cwd: path.join(dir, "sub"), env: { ...env, GIVEN_VAR: "FROM-SDK-ENV" } });
    expect(resultsSent(fake, 1)[0]?.content).toMatch(`FROM-SDK-ENV ${path.join(dir, "sub")}\n`);
  });

  it("includePartialMessages streams the text as stream_events before its assistant message", async ({
    dir,
    env,
    fake,
  }) => {
    fake.push(text("streamed words"));
    const run = await sdkQuery("x", { cwd: dir, env, includePartialMessages: true });
    const kinds = run.messages.map((m) => (m.type === "stream_event" ? m.event.type : m.type));
    expect(kinds).toContain("content_block_delta");
    expect(kinds.indexOf("message_stop")).toBeLessThan(kinds.indexOf("assistant"));
  });

  it("interrupt() stops the running call and ends the turn", async ({ dir, env, fake, project }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(sleep:*)\n---\nBe brief.\n" });
    // The call outlasts the test's own timeout: a turn that waited for it fails the test.
    fake.push(call("Bash", { command: "sleep 3000" }), text("never"));
    const run = await sdkQuery("wait", { cwd: dir, env }, async (m, q) => {
      if (m.type === "assistant") await q.interrupt();
    });
    expect(ofType(run, "result")[0]).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(fake.requests).toHaveLength(1);
  });

  it("setPermissionMode applies to later calls", async ({ dir, env, fake }) => {
    const write = (name: string) => call("Write", { file_path: path.join(dir, name), content: "x" });
    fake.push(write("before.txt"), text("no"), write("after.txt"), text("yes"));
    const turns = userTurns(["one", "two"]);
    let results = 0;
    const run = await sdkQuery(turns.prompt, { cwd: dir, env }, async (m, q) => {
      if (m.type === "result" && ++results === 1) {
        await q.setPermissionMode("acceptEdits");
        turns.next();
      }
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(existsSync(path.join(dir, "before.txt"))).toBe(false);
    expect(existsSync(path.join(dir, "after.txt"))).toBe(true);
    expect(ofType(run, "system", "status")[0]).toMatchObject({ permissionMode: "acceptEdits" });
  });
});
