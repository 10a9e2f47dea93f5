import { describe, expect } from "vitest";
import { initialize, startEditor } from "../support/acp-client.js";
import { it } from "../support/fixture.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { trustProject } from "../support/trust.js";

// A server's question under `agentmd acp`: the protocol has no way to ask the editor's user, so
// an Elicitation hook may answer, and otherwise the question is declined and the turn goes on.

const files = (hooks: Record<string, unknown> = {}) => ({
  ".mcp.json": mcpJson({ docs: stdioServer("extras") }),
  "agent.md": "---\nname: main\nallowed-tools: mcp__docs__*\n---\nYou help.\n",
  ".claude/settings.json": JSON.stringify({ hooks }),
});

async function askOnce(dir: string, env: Readonly<Record<string, string>>) {
  const editor = startEditor({ cwd: dir, env });
  await initialize(editor);
  const { sessionId } = await editor.connection.agent.request("session/new", { cwd: dir, mcpServers: [] });
  const r = await editor.connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "ask me" }],
  });
  editor.child.stdin?.end();
  expect(await editor.exited, editor.stderr()).toBe(0);
  return r;
}

describe("MCP elicitation under agentmd acp", () => {
  it("an Elicitation hook answers for the user", async ({ project, env, fake }) => {
    const reply = {
      hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: { name: "Ed" } },
    };
    const dir = project(
      files({
        Elicitation: [
          { matcher: "docs", hooks: [{ type: "command", command: `echo '${JSON.stringify(reply)}'` }] },
        ],
      }),
    );
    trustProject(dir);
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const r = await askOnce(dir, env);
    expect(r.stopReason).toBe("end_turn");
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Ed"}');
  });

  it("without a hook the question is declined, and the turn goes on", async ({ project, env, fake }) => {
    const dir = project(files());
    trustProject(dir);
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const r = await askOnce(dir, env);
    expect(r.stopReason).toBe("end_turn");
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });
});
