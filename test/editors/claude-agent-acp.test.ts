import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect } from "vitest";
import { type Editor, startEditor } from "../support/claude-agent-acp.js";
import { test as it } from "../support/fixture.js";
import { call, promptOf, resultsSent, resultText, text } from "../support/script.js";

/**
 * An editor reaching agentmd through Claude's adapter (claude-agent-acp, `CLAUDE_CODE_EXECUTABLE`
 * naming the built `agentmd`), over ACP, as Zed does: the adapter runs the Agent SDK, which starts
 * agentmd with the stream-json protocol. The lists bind whatever the editor answers.
 */

const INIT = { protocolVersion: 1, clientCapabilities: {} } as const;

/** Each update's kind, in order. */
const kinds = (updates: readonly SessionNotification[]) => updates.map((u) => u.update.sessionUpdate);

/** The text of every update of one kind (`agent_message_chunk`, `user_message_chunk`), joined. */
function textOf(updates: readonly SessionNotification[], kind: string): string {
  return updates
    .filter((u) => u.update.sessionUpdate === kind)
    .map((u) => {
      const content = (u.update as { content?: { type: string; text?: string } }).content;
      return content?.type === "text" ? (content.text ?? "") : "";
    })
    .join("");
}

async function newSession(ed: Editor, cwd: string): Promise<string> {
  await ed.agent.request("initialize", INIT);
  return (await ed.agent.request("session/new", { cwd, mcpServers: [] })).sessionId;
}

const prompt = (ed: Editor, sessionId: string, line: string) =>
  ed.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: line }] });

// Three processes a test (the adapter, the SDK's agentmd, the fake model): slow on a busy machine.
describe("an editor through claude-agent-acp", { timeout: 90_000 }, () => {
  it("opens a session and streams the answer of a prompt, with its usage", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push({
      kind: "message",
      content: [{ type: "text", text: "hello there" }],
      usage: { input_tokens: 12 },
    });
    await startEditor({ cwd: dir, env }, async (ed) => {
      const sessionId = await newSession(ed, dir);
      const r = await prompt(ed, sessionId, "hi");
      expect(r.stopReason).toBe("end_turn");
      expect(textOf(ed.updates, "agent_message_chunk")).toBe("hello there");
      expect((r as { usage?: { inputTokens?: number } }).usage?.inputTokens).toBe(12);
      expect(kinds(ed.updates)).toContain("usage_update");
      expect(promptOf(fake, 0)).toBe("hi");
    });
  });

  it("asks the editor for a call the lists leave to a user, and runs it once allowed", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    // No list: every tool, none pre-approved.
    project({ "agent.md": "Be brief.\n" });
    fake.push(call("Bash", { command: "touch made.txt" }, "toolu_t"), text("done"));
    await startEditor({ cwd: dir, env, permission: () => "allow_once" }, async (ed) => {
      const sessionId = await newSession(ed, dir);
      const r = await prompt(ed, sessionId, "make it");
      expect(r.stopReason).toBe("end_turn");
      expect(ed.asked.map((a) => a.toolCall.toolCallId)).toEqual(["toolu_t"]);
      expect(existsSync(path.join(dir, "made.txt"))).toBe(true);
      expect(kinds(ed.updates)).toContain("tool_call");
    });
  });

  it("refuses a call outside agent.md's list without asking, even an editor that allows everything", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(touch:*)\n---\nBe brief.\n", "keep.txt": "keep\n" });
    fake.push(call("Bash", { command: "rm keep.txt" }), text("ok"));
    await startEditor({ cwd: dir, env, permission: () => "allow_always" }, async (ed) => {
      const sessionId = await newSession(ed, dir);
      await prompt(ed, sessionId, "tidy");
      expect(ed.asked).toEqual([]);
      expect(readFileSync(path.join(dir, "keep.txt"), "utf8")).toBe("keep\n");
      expect(resultsSent(fake, 1)[0]?.is_error).toBe(true);
    });
  });

  it("refuses a subagent's call outside its caller's list without asking", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      "agent.md": "---\nallowed-tools: Task, Read\n---\nBe brief.\n",
      "agents/helper.md": "---\ndescription: writes\ntools: Read, Write\n---\nWrite what you are asked.\n",
    });
    fake.push(
      call("Task", { description: "w", prompt: "write x.txt", subagent_type: "helper" }),
      call("Write", { file_path: path.join(dir, "x.txt"), content: "pwned" }),
      text("could not"),
      text("ok"),
    );
    await startEditor({ cwd: dir, env, permission: () => "allow_always" }, async (ed) => {
      const sessionId = await newSession(ed, dir);
      const r = await prompt(ed, sessionId, "delegate");
      expect(r.stopReason).toBe("end_turn");
      expect(ed.asked).toEqual([]);
      expect(existsSync(path.join(dir, "x.txt"))).toBe(false);
      expect(resultText(resultsSent(fake, 2)[0])).toMatch(/Write/);
      expect(resultsSent(fake, 2)[0]?.is_error).toBe(true);
    });
  });

  it("lists the project's commands with their description and hint, and runs /name args", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n",
      "commands/greet.md":
        "---\ndescription: Greets someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n",
    });
    fake.push(text("Hello, Ada."));
    await startEditor({ cwd: dir, env }, async (ed) => {
      const sessionId = await newSession(ed, dir);
      const r = await prompt(ed, sessionId, "/greet Ada");
      expect(r.stopReason).toBe("end_turn");
      expect(promptOf(fake, 0)).toContain("Say hello to Ada.");
      const lists = ed.updates.flatMap((u) =>
        u.update.sessionUpdate === "available_commands_update" ? u.update.availableCommands : [],
      );
      expect(lists).toContainEqual(
        expect.objectContaining({ name: "greet", description: "Greets someone", input: { hint: "<name>" } }),
      );
    });
  });

  it("replays a session's history on session/load, and goes on with it", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n" });
    fake.push(text("first answer"), text("second answer"));
    let sessionId = "";
    await startEditor({ cwd: dir, env }, async (ed) => {
      sessionId = await newSession(ed, dir);
      await prompt(ed, sessionId, "first question");
    });
    await startEditor({ cwd: dir, env }, async (ed) => {
      await ed.agent.request("initialize", INIT);
      await ed.agent.request("session/load", { sessionId, cwd: dir, mcpServers: [] });
      expect(textOf(ed.updates, "user_message_chunk")).toBe("first question");
      expect(textOf(ed.updates, "agent_message_chunk")).toBe("first answer");
      const r = await prompt(ed, sessionId, "second question");
      expect(r.stopReason).toBe("end_turn");
      // The model is sent the whole conversation: the session went on.
      expect(promptOf(fake, 1)).toBe("first question");
    });
  });
});
