import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { openChannel, type SdkRequest } from "../../src/cli/stream-json/sdk-channel.js";
import { answerOf } from "../../src/loop/hook-run.js";

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
    expect((await p.channel.nextUser())?.message.content).toBe("hi");
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
