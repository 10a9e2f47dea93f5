import { readdirSync } from "node:fs";
import path from "node:path";
import { getSessionMessages } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { titleOf } from "../../src/cli/stream-json/sdk-control.js";
import { claudeProjectDir } from "../../src/cli/stream-json/sdk-history.js";
import { test } from "../support/fixture.js";
import { promptOf, text } from "../support/script.js";

/** What claude-agent-acp needs of the stream-json protocol, asked of the built CLI directly. */

const FLAGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
const SESSION = "0b7c6a52-4a5e-4c1f-9f0e-3d2b1a0c9e8d";
const user = (content: unknown, uuid?: string) =>
  JSON.stringify({
    type: "user",
    message: { role: "user", content },
    parent_tool_use_id: null,
    ...(uuid && { uuid }),
  });
const request = (id: string, body: object) =>
  JSON.stringify({ type: "control_request", request_id: id, request: body });
const out = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const responseTo = (lines: Record<string, unknown>[], id: string) =>
  lines.find(
    (l) => l.type === "control_response" && (l.response as { request_id?: string }).request_id === id,
  )?.response as { subtype: string; response?: Record<string, unknown>; error?: string } | undefined;

describe("what claude-agent-acp needs of agentmd's stream-json", () => {
  test("--replay-user-messages echoes each user message taken, with its uuid, before its turn", async ({
    cli,
    fake,
  }) => {
    fake.push(text("one"), text("two"));
    const r = await cli([...FLAGS, "--replay-user-messages", "", `--session-id=${SESSION}`], {
      input: `${user("first", "u-1")}\n${user([{ type: "text", text: "second" }], "u-2")}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = out(r.stdout);
    const echoes = lines.filter((l) => l.type === "user" && l.isReplay === true);
    expect(echoes.map((l) => l.uuid)).toEqual(["u-1", "u-2"]);
    expect(echoes[0]).toMatchObject({ session_id: SESSION, message: { role: "user", content: "first" } });
    // Each echo comes before its turn's messages.
    expect(lines.indexOf(echoes[1] as Record<string, unknown>)).toBeGreaterThan(
      lines.findIndex((l) => l.type === "result"),
    );
    const plain = await cli(FLAGS, { input: `${user("again")}\n` });
    expect(out(plain.stdout).some((l) => l.isReplay)).toBe(false);
  });

  test("--replay-user-messages needs stream-json input", async ({ cli }) => {
    const r = await cli(["-p", "hi", "--replay-user-messages"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--replay-user-messages needs --input-format stream-json/);
  });

  test("--permission-mode auto runs as default, said once on stderr; set_permission_mode auto too", async ({
    cli,
    fake,
    project,
  }) => {
    project({ "agent.md": "Be brief.\n" });
    fake.push({
      kind: "message",
      content: [{ type: "tool_use", name: "Bash", input: { command: "touch x" } }],
    });
    fake.push(text("ok"));
    const r = await cli([...FLAGS, "--permission-mode=auto"], {
      input: `${request("m1", { subtype: "set_permission_mode", mode: "auto" })}\n${user("go")}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/'auto' is taken as 'default'/g)).toHaveLength(1);
    const lines = out(r.stdout);
    expect(responseTo(lines, "m1")?.response).toEqual({ mode: "default" });
    expect(lines.find((l) => l.subtype === "init")?.permissionMode).toBe("default");
    // Default mode with no one to ask: the call that needs approval is refused, never approved.
    expect(lines.find((l) => l.type === "result")?.permission_denials).toHaveLength(1);
  });

  test("stream events start each response with its id, model and usage, and end it with the whole usage", async ({
    cli,
    fake,
  }) => {
    fake.push({
      kind: "message",
      content: [{ type: "text", text: "streamed" }],
      usage: { input_tokens: 42, output_tokens: 7 },
    });
    const r = await cli([...FLAGS, "--include-partial-messages"], { input: `${user("hi")}\n` });
    expect(r.code, r.stderr).toBe(0);
    const lines = out(r.stdout);
    const events = lines
      .filter((l) => l.type === "stream_event")
      .map((l) => l.event as Record<string, unknown>);
    // The text's deltas, however many, between the block's start and stop.
    expect(events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const assistant = lines.find((l) => l.type === "assistant")?.message as { id: string; model: string };
    expect(events[0]?.message).toMatchObject({
      id: assistant.id,
      model: assistant.model,
      role: "assistant",
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(events.find((e) => e.type === "message_delta")?.usage).toMatchObject({
      input_tokens: 42,
      output_tokens: 7,
    });
  });

  test("session_state_changed goes running, then idle after the result, when asked for", async ({
    cli,
    fake,
  }) => {
    fake.push(text("one"));
    const r = await cli(FLAGS, {
      input: `${user("hi")}\n`,
      env: { CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" },
    });
    const lines = out(r.stdout);
    const states = lines.filter((l) => l.subtype === "session_state_changed");
    expect(states.map((l) => [l.state, l.sdk_host_only])).toEqual([
      ["running", undefined],
      ["idle", undefined],
    ]);
    expect(lines.indexOf(states[1] as Record<string, unknown>)).toBeGreaterThan(
      lines.findIndex((l) => l.type === "result"),
    );
    const sdkOnly = await cli(FLAGS, {
      input: `${user("hi")}\n`,
      env: { CLAUDE_CODE_SDK_READS_SESSION_STATE: "1" },
    });
    expect(
      out(sdkOnly.stdout).filter((l) => l.subtype === "session_state_changed" && l.sdk_host_only),
    ).toHaveLength(2);
    const none = await cli(FLAGS, { input: `${user("hi")}\n` });
    expect(out(none.stdout).some((l) => l.subtype === "session_state_changed")).toBe(false);
  });

  test("/name args in a user message runs the command; an unknown /name is that turn's error, sent nowhere", async ({
    cli,
    fake,
    project,
  }) => {
    project({
      "agent.md": "Be brief.\n",
      "commands/greet.md":
        "---\ndescription: Greets someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n",
    });
    fake.push(text("Hello, Ada."));
    const r = await cli(FLAGS, {
      input: `${request("i1", { subtype: "initialize" })}\n${user([{ type: "text", text: "/greet Ada" }])}\n${user("/gret Bo")}\n`,
    });
    const lines = out(r.stdout);
    expect(responseTo(lines, "i1")?.response?.commands).toContainEqual({
      name: "greet",
      description: "Greets someone",
      argumentHint: "<name>",
    });
    expect(promptOf(fake, 0)).toContain("Say hello to Ada.");
    const results = lines.filter((l) => l.type === "result");
    expect(results[1]).toMatchObject({ is_error: true });
    expect(String(results[1]?.errors)).toMatch(/unknown command or skill \/gret; did you mean \/greet\?/);
    expect(fake.requests).toHaveLength(1);
  });

  test("get_settings, get_context_usage, generate_session_title and cancel_async_message are answered", async ({
    cli,
    fake,
  }) => {
    fake.push({ kind: "message", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1000 } });
    const r = await cli(FLAGS, {
      input: [
        user("hi"),
        request("s", { subtype: "get_settings" }),
        request("c", { subtype: "get_context_usage", detail: "summary" }),
        request("t", {
          subtype: "generate_session_title",
          description: "Fix the flaky login test in CI",
          persist: true,
        }),
        request("x", { subtype: "cancel_async_message", message_uuid: "u-9" }),
        request("n", { subtype: "no_such_thing" }),
        "",
      ].join("\n"),
    });
    const lines = out(r.stdout);
    expect(responseTo(lines, "s")?.response?.applied).toMatchObject({ permissionMode: "default" });
    expect(responseTo(lines, "c")?.response).toMatchObject({ maxTokens: 200_000, rawMaxTokens: 200_000 });
    expect(responseTo(lines, "t")?.response).toEqual({ title: "Fix the flaky login test in CI" });
    expect(responseTo(lines, "x")?.response).toEqual({ cancelled: false });
    expect(responseTo(lines, "n")).toMatchObject({
      subtype: "error",
      error: expect.stringMatching(/no_such_thing/),
    });
  });

  test("a session's messages are kept where the Agent SDK's getSessionMessages reads them", async ({
    cli,
    fake,
    dir,
    env,
  }) => {
    fake.push(text("the answer"), text("kept nowhere"));
    const r = await cli([...FLAGS, `--session-id=${SESSION}`], { input: `${user("the question", "u-q")}\n` });
    expect(r.code, r.stderr).toBe(0);
    const previous = process.env.HOME;
    process.env.HOME = env.HOME;
    try {
      const messages = await getSessionMessages(SESSION, { dir });
      expect(messages.map((m) => [m.type, JSON.stringify(m.message)])).toEqual([
        ["user", JSON.stringify({ role: "user", content: "the question" })],
        ["assistant", expect.stringContaining("the answer")],
      ]);
      expect(messages[0]?.uuid).toBe("u-q");
    } finally {
      process.env.HOME = previous;
    }
    const none = await cli(
      [...FLAGS, "--no-session-persistence", "--session-id=1b7c6a52-4a5e-4c1f-9f0e-3d2b1a0c9e8d"],
      {
        input: `${user("q")}\n`,
      },
    );
    expect(none.code, none.stderr).toBe(0);
    const kept = String(claudeProjectDir({ HOME: env.HOME }, dir));
    expect(kept).toBe(path.join(String(env.HOME), ".claude", "projects", dir.replace(/[^a-zA-Z0-9]/g, "-")));
    expect(readdirSync(kept)).toEqual([`${SESSION}.jsonl`]);
  });

  // The first answer crosses the built CLI; the others run the CLI's main() in this process.
  test("auth status --json says which credential a run would use, as claude auth status does", async ({
    cli,
    main,
  }) => {
    const key = await cli(["auth", "status", "--json"]);
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout)).toEqual({
      loggedIn: true,
      authMethod: "api_key",
      apiProvider: "firstParty",
      apiKeySource: "ANTHROPIC_API_KEY",
    });
    const none = await main(["--settings", "{}", "auth", "status", "--json"], {
      env: { ANTHROPIC_API_KEY: "" },
    });
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({ loggedIn: false });
    const bedrock = await main(["auth", "status"], { env: { CLAUDE_CODE_USE_BEDROCK: "1" } });
    expect(bedrock.stdout).toMatch(/Claude on bedrock/);
  });
});

describe("a session's title", () => {
  it.for([
    ["Fix the flaky test", "Fix the flaky test"],
    ["  two\n lines  ", "two lines"],
    ["", "Untitled session"],
    [
      "Refactor the permission checks so that every hop narrows the list and nothing widens it",
      "Refactor the permission checks so that every hop narrows…",
    ],
  ])("%j is titled %j", ([description, title]) => {
    expect(titleOf(description as string)).toBe(title);
  });
});
