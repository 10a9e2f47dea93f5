import { describe, expect } from "vitest";
import { ofType, sdkQuery } from "../support/agent-sdk.js";
import { test as it } from "../support/fixture.js";
import { text } from "../support/script.js";

describe("query() with pathToClaudeCodeExecutable set to agentmd", () => {
  it("answers a string prompt: init, assistant, result, and the process exits 0", async ({ dir, env, fake, project }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(text("Hello from agentmd."));
    const run = await sdkQuery("say hello", { cwd: dir, env, maxTurns: 3, allowedTools: ["Read"] });
    expect(run.error, run.stderr).toBeUndefined();
    const [init] = ofType(run, "system", "init");
    expect(init).toMatchObject({ permissionMode: "default", cwd: dir });
    expect(init?.tools).toContain("Read");
    const [result] = ofType(run, "result");
    expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Hello from agentmd." });
    expect(result?.session_id).toBe(init?.session_id);
    expect(run.messages[0]?.type).toBe("system");
  });
});
