import { describe, expect } from "vitest";
import { initOf, ofType, sdkQuery, userTurns } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { promptOf, text } from "../support/script.js";

/** An SDK program that changes nothing but the executable: start-up, turns, the process's end. */
describe("query() with pathToClaudeCodeExecutable set to agentmd", () => {
  it("answers a string prompt: init, assistant, result, and the process exits 0", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(text("Hello from agentmd."));
    const run = await sdkQuery("say hello", { cwd: dir, env, maxTurns: 3, allowedTools: ["Read"] });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.messages[0]).toMatchObject({
      type: "system",
      subtype: "init",
      permissionMode: "default",
      cwd: dir,
    });
    const init = initOf(run);
    expect(init?.tools).toEqual(["Read"]);
    const [assistant] = ofType(run, "assistant");
    expect(assistant?.message.content).toEqual([{ type: "text", text: "Hello from agentmd." }]);
    const [result] = ofType(run, "result");
    expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Hello from agentmd." });
    expect(result?.session_id).toBe(init?.session_id);
    expect(promptOf(fake, 0)).toContain("say hello");
  });

  it("streams input: each user message is a turn of one conversation, with a result each", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(text("FIRST-ANSWER"), text("SECOND-ANSWER"));
    const turns = userTurns(["FIRST-ASK", "SECOND-ASK"]);
    const run = await sdkQuery(turns.prompt, { cwd: dir, env }, (m) => {
      if (m.type === "result") turns.next();
    });
    expect(run.error, run.stderr).toBeUndefined();
    const results = ofType(run, "result");
    expect(results.map((r) => (r as { result?: string }).result)).toEqual(["FIRST-ANSWER", "SECOND-ANSWER"]);
    expect(new Set(results.map((r) => r.session_id)).size).toBe(1);
    // The second request holds the first turn.
    const second = JSON.stringify(fake.requests[1]?.body.messages);
    expect(second).toContain("FIRST-ASK");
    expect(second).toContain("FIRST-ANSWER");
    expect(second).toContain("SECOND-ASK");
  });

  it("a project whose agent.md cannot load fails the query with agentmd's message", async ({
    dir,
    env,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\nallowed-tols: Bash\n---\nBroken.\n" });
    const run = await sdkQuery("hello", { cwd: dir, env });
    expect(run.error).toBeDefined();
    expect(run.stderr).toMatch(/agent\.md cannot be loaded/);
  });
});
