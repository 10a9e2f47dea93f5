import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type AcpEditor, initialize, startEditor } from "../support/acp-client.js";
import { it } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { stdioServer } from "../support/mcp.js";
import { until } from "../support/until.js";

// `agentmd acp` end to end: the built CLI, started as an editor starts it, driven by the Agent
// Client Protocol's own client, against the fake model server.

/** agent.md's list: Read, Write, TodoWrite, Task, `Bash(sleep:*)` and `Bash(echo:*)`; Write asks each time. */
const PROJECT = {
  "agent.md":
    "---\nname: main\nallowed-tools: Read, Write, TodoWrite, Task, Bash(sleep:*), Bash(echo:*)\n---\nYou help.\n",
  "agents/helper.md": "---\nname: helper\ndescription: Helps.\ntools: Read, Bash\n---\nHelp.\n",
  "commands/greet.md":
    "---\ndescription: Greets someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS warmly.\n",
  ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Write"] } }),
  "notes.txt": "on disk\n",
};

const text = (s: string) => ({ kind: "message" as const, content: [{ type: "text" as const, text: s }] });
const call = (name: string, input: unknown, id = `call-${name}`) => ({
  kind: "message" as const,
  content: [{ type: "tool_use" as const, id, name, input }],
});

/** The tool results the model was sent in its last request, as one text. */
function lastResults(requests: readonly { body: { messages: readonly unknown[] } }[]): string {
  return JSON.stringify(requests.at(-1)?.body.messages.at(-1));
}

/** Whether a process runs with exactly this command line. */
function sleeping(commandLine: string): boolean {
  const ps = spawnSync("ps", ["-eo", "args"], { encoding: "utf8" });
  return ps.stdout.split("\n").some((l) => l.trim() === commandLine);
}

async function newSession(editor: AcpEditor, cwd: string) {
  return editor.connection.agent.request("session/new", { cwd, mcpServers: [] });
}

describe("agentmd acp", () => {
  it("answers initialize, opens a session with its modes and commands, and streams a prompt's answer", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    fake.push({
      kind: "message",
      content: [
        { type: "thinking", thinking: "They greet me." },
        { type: "text", text: "Hello from agentmd" },
      ],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    const editor = startEditor({ cwd: dir, env });
    const init = await initialize(editor);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });
    const { sessionId, modes } = await newSession(editor, dir);
    expect(modes?.currentModeId).toBe("default");
    expect(modes?.availableModes.map((m) => m.id)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "bypassPermissions",
    ]);
    const r = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(r.stopReason).toBe("end_turn");
    const said = editor
      .of(sessionId, "agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");
    expect(said).toBe("Hello from agentmd");
    expect(editor.of(sessionId, "agent_thought_chunk").map((u) => u.content)).toEqual([
      { type: "text", text: "They greet me." },
    ]);
    expect(editor.of(sessionId, "usage_update").at(-1)).toMatchObject({ used: 120, size: 200_000 });
    const commands = await until(() => editor.of(sessionId, "available_commands_update")[0], {
      what: "the commands",
    });
    expect(commands.availableCommands).toContainEqual({
      name: "greet",
      description: "Greets someone",
      input: { hint: "NAME" },
    });
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("runs '/name args' as the REPL does, and replays the session on session/load", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    fake.push(text("Hello, Bob!"));
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor);
    const { sessionId } = await newSession(editor, dir);
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/greet Bob" }],
    });
    expect(JSON.stringify(fake.requests[0]?.body.messages)).toContain("Say hello to Bob warmly.");
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);

    const again = startEditor({ cwd: dir, env });
    await initialize(again);
    await again.connection.agent.request("session/load", { sessionId, cwd: dir, mcpServers: [] });
    const user = again.of(sessionId, "user_message_chunk").map((u) => u.content);
    expect(JSON.stringify(user)).toContain("Say hello to Bob warmly.");
    expect(again.of(sessionId, "agent_message_chunk").map((u) => u.content)).toContainEqual({
      type: "text",
      text: "Hello, Bob!",
    });
    await expect(
      again.connection.agent.request("session/load", { sessionId: "no-such", cwd: dir, mcpServers: [] }),
    ).rejects.toThrow();
    again.child.stdin?.end();
    expect(await again.exited).toBe(0);
  });

  it("refuses a call outside agent.md's list without asking, asks for one the settings ask about, and writes through the editor", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    const file = path.join(dir, "out.txt");
    fake.push(
      call("Bash", { command: "rm -rf build" }),
      call("Write", { file_path: file, content: "new text\n" }),
      call("TodoWrite", { todos: [{ content: "Check it", status: "in_progress", activeForm: "Checking" }] }),
      text("done"),
    );
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor, { fs: { readTextFile: true, writeTextFile: true } });
    const { sessionId } = await newSession(editor, dir);
    const r = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(r.stopReason).toBe("end_turn");
    // Bash(rm …) is outside the list: refused, never asked about.
    expect(editor.asked.map((q) => q.toolCall.title)).toEqual([`Write out.txt`]);
    expect(editor.asked[0]?.options.map((o) => o.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    const ends = editor.of(sessionId, "tool_call_update");
    expect(ends.find((u) => u.toolCallId === "call-Bash")?.status).toBe("failed");
    const write = editor.of(sessionId, "tool_call").find((u) => u.toolCallId === "call-Write");
    expect(write).toMatchObject({
      kind: "edit",
      locations: [{ path: file }],
      content: [{ type: "diff", path: file, oldText: null, newText: "new text\n" }],
    });
    expect(ends.find((u) => u.toolCallId === "call-Write")?.status).toBe("completed");
    // The edit landed in the editor, not on the disk.
    expect(editor.written.get(file)).toBe("new text\n");
    expect(existsSync(file)).toBe(false);
    expect(editor.of(sessionId, "plan").at(-1)?.entries).toEqual([
      { content: "Check it", priority: "medium", status: "in_progress" },
    ]);
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("a rejected question and a subagent's call outside its caller's list: neither runs", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    fake.push(
      call("Task", { subagent_type: "helper", description: "look", prompt: "look around" }),
      call("Bash", { command: "curl example.com" }, "sub-bash"),
      text("the helper could not"),
      call("Write", { file_path: path.join(dir, "x.txt"), content: "x" }),
      text("ok"),
    );
    const editor = startEditor({ cwd: dir, env, answer: () => "reject_once" });
    await initialize(editor);
    const { sessionId } = await newSession(editor, dir);
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const ends = editor.of(sessionId, "tool_call_update");
    expect(ends.find((u) => u.toolCallId === "sub-bash")?.status).toBe("failed");
    expect(editor.asked.map((q) => q.toolCall.toolCallId)).toEqual(["call-Write"]);
    expect(ends.find((u) => u.toolCallId === "call-Write")?.status).toBe("failed");
    expect(existsSync(path.join(dir, "x.txt"))).toBe(false);
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("'allow always' is the REPL's: calls like it are not asked about again in the session", async ({
    project,
    env,
    fake,
  }) => {
    // No list in agent.md: Claude Code's default tier, where a command that writes asks.
    const dir = project({ "agent.md": "---\nname: main\n---\nYou help.\n" });
    fake.push(
      call("Bash", { command: "touch a.txt" }, "touch-a"),
      call("Bash", { command: "touch b.txt" }, "touch-b"),
      call("Bash", { command: "mkdir c" }, "mkdir-c"),
      text("done"),
    );
    const editor = startEditor({
      cwd: dir,
      env,
      answer: (q) => (q.toolCall.toolCallId === "touch-a" ? "allow_always" : "reject_once"),
    });
    await initialize(editor);
    const { sessionId } = await newSession(editor, dir);
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(editor.asked.map((q) => q.toolCall.toolCallId)).toEqual(["touch-a", "mkdir-c"]);
    expect(existsSync(path.join(dir, "b.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "c"))).toBe(false);
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("the editor's MCP servers run under agent.md's list like any server", async ({ project, env, fake }) => {
    const dir = project({ "agent.md": "---\nname: main\nallowed-tools: mcp__ed__echo\n---\nYou help.\n" });
    fake.push(
      call("mcp__ed__whoami", {}, "who"),
      call("mcp__ed__echo", { text: "from the editor's server" }, "echo"),
      text("done"),
    );
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor);
    const server = stdioServer("basic");
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: dir,
      mcpServers: [{ name: "ed", command: server.command, args: server.args, env: [] }],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const offered = (fake.requests[0]?.body.tools ?? []).map((t) => ("name" in t ? t.name : ""));
    expect(offered).toContain("mcp__ed__echo");
    expect(offered).not.toContain("mcp__ed__whoami");
    const ends = editor.of(sessionId, "tool_call_update");
    expect(ends.find((u) => u.toolCallId === "who")?.status).toBe("failed");
    expect(ends.find((u) => u.toolCallId === "echo")?.status).toBe("completed");
    expect(lastResults(fake.requests)).toContain("from the editor's server");
    expect(editor.asked).toEqual([]);
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("reads the editor's buffer, not the disk, when the editor offers its files", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    const notes = path.join(dir, "notes.txt");
    fake.push(call("Read", { file_path: notes }), text("read it"));
    const editor = startEditor({ cwd: dir, env, buffers: new Map([[notes, "unsaved buffer\n"]]) });
    await initialize(editor, { fs: { readTextFile: true } });
    const { sessionId } = await newSession(editor, dir);
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    expect(lastResults(fake.requests)).toContain("unsaved buffer");
    expect(lastResults(fake.requests)).not.toContain("on disk");
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("runs Bash in the editor's terminal; cancel stops it, answers cancelled, and the session goes on", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    fake.push(call("Bash", { command: "echo hi" }), text("echoed"), call("Bash", { command: "sleep 30" }));
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor, { terminal: true });
    const { sessionId } = await newSession(editor, dir);
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    expect(lastResults(fake.requests)).toContain("hi");
    const echo = editor.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === "call-Bash");
    expect(echo.at(-1)).toMatchObject({ status: "completed", content: [{ type: "terminal" }] });
    expect(editor.terminalCalls).toContain("terminal/release");

    const turn = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "sleep" }],
    });
    await until(() => editor.terminalCalls.filter((c) => c === "terminal/create").length === 2, {
      what: "the sleep to start in a terminal",
    });
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(editor.terminalCalls).toContain("terminal/kill");

    fake.push(text("still here"));
    const after = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    expect(after.stopReason).toBe("end_turn");
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("the end of standard input during a turn ends the agent with nothing left running", async ({
    project,
    env,
    fake,
  }) => {
    const dir = project(PROJECT);
    fake.push(call("Bash", { command: "sleep 37.25" }));
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor);
    const { sessionId } = await newSession(editor, dir);
    void editor.connection.agent
      .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] })
      .catch(() => {});
    await until(() => sleeping("sleep 37.25"), { what: "the command to start" });
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
    await until(() => !sleeping("sleep 37.25"), { what: "the command to end" });
  });

  it("cancel during the model's answer ends the turn cancelled", async ({ project, env, fake }) => {
    const dir = project(PROJECT);
    fake.push({ kind: "hang", before: [{ type: "text", text: "thinking about" }] });
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor);
    const { sessionId } = await newSession(editor, dir);
    const turn = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "slow" }],
    });
    await until(() => editor.of(sessionId, "agent_message_chunk").length > 0, { what: "the first words" });
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("says why a turn ended: max_tokens, max_turn_requests, refusal", async ({ project, env, fake }) => {
    const dir = project(PROJECT);
    const turnOf = async (args: string[], ...steps: Parameters<typeof fake.push>) => {
      const editor = startEditor({ cwd: dir, env, args });
      await initialize(editor);
      const { sessionId } = await newSession(editor, dir);
      fake.push(...steps);
      const r = await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "go" }],
      });
      editor.child.stdin?.end();
      expect(await editor.exited).toBe(0);
      return r.stopReason;
    };
    expect(await turnOf([], { ...text("cut off in the mid"), stopReason: "max_tokens" })).toBe("max_tokens");
    expect(await turnOf(["--max-turns", "1"], call("Read", { file_path: path.join(dir, "notes.txt") }))).toBe(
      "max_turn_requests",
    );
    expect(await turnOf([], { ...text(""), stopReason: "refusal" })).toBe("refusal");
  });

  it("changes mode with session/set_mode, and offers no bypassPermissions where the settings turn it off", async ({
    project,
    env,
  }) => {
    const dir = project({
      ...PROJECT,
      ".claude/settings.json": JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }),
    });
    const editor = startEditor({ cwd: dir, env });
    await initialize(editor);
    const { sessionId, modes } = await newSession(editor, dir);
    expect(modes?.availableModes.map((m) => m.id)).not.toContain("bypassPermissions");
    await editor.connection.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await until(() => editor.of(sessionId, "current_mode_update").length > 0, { what: "the mode update" });
    expect(editor.of(sessionId, "current_mode_update")[0]?.currentModeId).toBe("plan");
    await expect(
      editor.connection.agent.request("session/set_mode", { sessionId, modeId: "bypassPermissions" }),
    ).rejects.toThrow(/not a mode/);
    editor.child.stdin?.end();
    expect(await editor.exited).toBe(0);
  });

  it("bad input: a parse error, -32601 for an unknown method, and it keeps running until stdin ends", async ({
    dir,
    env,
  }) => {
    const child = spawn(path.join(REPO_ROOT, "bin/agentmd"), ["acp"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const closed = new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    child.stdin.write("this is not json\n");
    child.stdin.write(
      '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n',
    );
    await until(() => out.includes('"id":2'), { what: "the initialize answer" });
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"no/such","params":{}}\n');
    await until(() => out.includes('"id":1'), { what: "the unknown method's answer" });
    child.stdin.end();
    expect(await closed).toBe(0);
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } });
    expect(lines.find((l) => l.id === null)?.error?.code).toBe(-32700);
    expect(lines.find((l) => l.id === 1)?.error?.code).toBe(-32601);
    expect(lines.find((l) => l.id === 2)?.error).toBeUndefined();
  });
});
