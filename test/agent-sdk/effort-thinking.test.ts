import { describe, expect } from "vitest";
import { ofType, sdkQuery } from "../support/agent-sdk.js";
import { signatureOf } from "../support/fake-anthropic.js";
import { test as it } from "../support/fixture.js";
import { text, use } from "../support/script.js";

/** The Agent SDK's `effort`, `thinking` and an agent's `effort`, as it passes them to the CLI it starts. */
describe("SDK effort and thinking", () => {
  it("effort and a thinking budget reach every request; an agent's own effort its own requests; the thinking block goes back", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read, Task\n---\nMAIN.\n", "a.txt": "alpha\n" });
    fake.push(
      {
        kind: "message",
        content: [
          { type: "thinking", thinking: "delegate" },
          use("Task", { subagent_type: "scout", description: "s", prompt: "look" }),
        ],
      },
      text("scouted"),
      text("done"),
    );
    const run = await sdkQuery("go", {
      cwd: dir,
      env,
      model: "claude-sonnet-4-6",
      effort: "medium",
      thinking: { type: "enabled", budgetTokens: 2048 },
      agents: { scout: { description: "Scouts.", prompt: "SCOUT.", tools: ["Read"], effort: "high" } },
    });
    expect(ofType(run, "result")[0]).toMatchObject({ subtype: "success", result: "done" });
    const bodies = fake.requests.map((q) => q.body as unknown as Record<string, unknown>);
    const efforts = bodies.map((b) => (b.output_config as { effort?: string } | undefined)?.effort);
    expect(efforts).toEqual(["medium", "high", "medium"]);
    for (const b of bodies) expect(b.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(fake.requests.map((q) => q.headers["anthropic-beta"])).toEqual(Array(3).fill("effort-2025-11-24"));
    expect(JSON.stringify(bodies[2]?.messages)).toContain(signatureOf("delegate"));
  });
});
