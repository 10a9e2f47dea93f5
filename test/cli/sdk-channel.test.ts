import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { openChannel, type SdkRequest, userContent } from "../../src/cli/stream-json/sdk-channel.js";
import { answerOf } from "../../src/loop/hook-run.js";
import { test } from "../support/fixture.js";
import { text } from "../support/script.js";

function pipe() {
  const stdin = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  const requests: SdkRequest[] = [];
  const channel = openChannel(
    {
      stdin,
      stdout: {
        write: (s: string) =>
          lines.push(
            ...s
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l)),
          ),
      },
      stderr: { write: (s: string) => (stderr += s) },
    },
    (r) => requests.push(r),
  );
  return { stdin, lines, channel, requests, stderr: () => stderr };
}

describe("the SDK's pipe", () => {
  it("settles a request with the SDK's answer, and sorts its requests and user messages", async () => {
    const p = pipe();
    const asked = p.channel.request({ subtype: "can_use_tool", tool_name: "Bash" });
    const id = String(p.lines[0]?.request_id);
    p.stdin.write(
      `${JSON.stringify({ type: "control_response", response: { subtype: "success", request_id: id, response: { behavior: "allow" } } })}\n`,
    );
    p.stdin.write(
      `${JSON.stringify({ type: "control_request", request_id: "r1", request: { subtype: "interrupt" } })}\n`,
    );
    p.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "hi" } })}\n`);
    expect(await asked).toEqual({ behavior: "allow" });
    const user = await p.channel.nextUser();
    expect(user && userContent(user)).toBe("hi");
    expect(p.requests.map((r) => r.request.subtype)).toEqual(["interrupt"]);
  });

  it("an error answer rejects with its text; a line that is not JSON is said and skipped", async () => {
    const p = pipe();
    const asked = p.channel.request({ subtype: "mcp_message" });
    p.stdin.write("not json\n");
    const id = String(p.lines[0]?.request_id);
    p.stdin.write(
      `${JSON.stringify({ type: "control_response", response: { subtype: "error", request_id: id, error: "NO-SERVER" } })}\n`,
    );
    await expect(asked).rejects.toThrow("NO-SERVER");
    expect(p.stderr()).toMatch(/not a JSON message/);
  });

  it("when stdin ends, a pending request fails and nextUser is undefined: nothing hangs", async () => {
    const p = pipe();
    const asked = p.channel.request({ subtype: "hook_callback" });
    const next = p.channel.nextUser();
    p.stdin.end();
    await expect(asked).rejects.toThrow(/closed its input/);
    expect(await next).toBeUndefined();
    await p.channel.closed;
    await expect(p.channel.request({ subtype: "x" })).rejects.toThrow(/closed/);
  });

  it("an aborted request is cancelled on the pipe", async () => {
    const p = pipe();
    const controller = new AbortController();
    const asked = p.channel.request({ subtype: "can_use_tool" }, controller.signal);
    controller.abort();
    await expect(asked).rejects.toThrow("interrupted");
    expect(p.lines[1]).toMatchObject({ type: "control_cancel_request", request_id: p.lines[0]?.request_id });
  });
});

describe("a hook callback's answer is read as a command hook's JSON", () => {
  const name = "the SDK callback cb1 hook";
  it.each([
    [{}, {}],
    [
      { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "why" } },
      { decision: "block", reason: "why" },
    ],
    [
      { decision: "block", reason: "r" },
      { decision: "block", reason: "r" },
    ],
    [
      { continue: false, stopReason: "stop" },
      { halt: true, decision: "block", reason: "stop" },
    ],
    [
      { hookSpecificOutput: { permissionDecision: "ask" } },
      { decision: "ask", reason: `${name} asks for a user's approval` },
    ],
    [{ hookSpecificOutput: { permissionDecision: "allow" } }, { decision: "allow" }],
    [{ decision: "approve" }, { decision: "allow" }],
  ])("%j is %j", (reply, expected) => {
    expect(answerOf(reply, "PreToolUse", name)).toEqual(expected);
  });

  it("an updatedInput is a new call for the lists to judge; one that is not an object fails", () => {
    expect(answerOf({ hookSpecificOutput: { updatedInput: { command: "x" } } }, "PreToolUse", name)).toEqual({
      updatedInput: { command: "x" },
    });
    expect(answerOf({ hookSpecificOutput: { updatedInput: "rm -rf /" } }, "PreToolUse", name).failed).toMatch(
      /not an object/,
    );
  });
});

/** stream-json input as Claude Code's docs show it: user messages alone, one a line, no initialize. */
describe("agentmd -p --input-format stream-json, through the built CLI", () => {
  const FLAGS = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"];
  const user = (content: unknown) => JSON.stringify({ type: "user", message: { role: "user", content } });
  const out = (stdout: string) =>
    stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  test("user messages without initialize are answered: init, the run's messages and a result each", async ({
    cli,
    fake,
  }) => {
    fake.push(text("FIRST-ANSWER"), text("SECOND-ANSWER"));
    const r = await cli(FLAGS, {
      input: `${user("first?")}\n${user([{ type: "text", text: "second?" }])}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = out(r.stdout);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    const results = lines.filter((l) => l.type === "result");
    expect(results.map((l) => l.result)).toEqual(["FIRST-ANSWER", "SECOND-ANSWER"]);
    expect(lines.filter((l) => l.type === "system" && l.subtype === "init")).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain("first?");
  });

  test.for<[string, unknown]>([
    ["one block object", { type: "text", text: "hi" }],
    ["a number", 42],
    ["null", null],
    ["an empty list", []],
    ["a list of strings", ["hi"]],
  ])(
    "content that is %s is a JSON error result, and the next message is answered",
    async ([, content], { cli, fake }) => {
      fake.push(text("ANSWERED"));
      const r = await cli(FLAGS, { input: `${user(content)}\n${user("next")}\n` });
      expect(r.stderr).not.toMatch(/internal error|^\s+at /m);
      const results = out(r.stdout).filter((l) => l.type === "result");
      expect(results[0]).toMatchObject({ is_error: true, subtype: "error_during_execution" });
      expect(String(results[0]?.errors)).toMatch(
        /a user message must be .*a string or a list of content blocks/,
      );
      expect(results[1]).toMatchObject({ is_error: false, result: "ANSWERED" });
      expect(r.code).toBe(0);
      expect(fake.requests).toHaveLength(1);
    },
  );
});
