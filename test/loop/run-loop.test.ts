import { readFileSync } from "node:fs";
import path from "node:path";
import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type RunnerOptions } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import { defineTool, ok } from "../../src/tools/index.js";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { calls, resultsSent as sentIn, text, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md":
      "---\nname: tester\nallowed-tools: Read, Glob, Grep, Write, Bash(git:*), Slow, Boom, Hang\n---\nYou test things.\n",
    "a.txt": "alpha\n",
    "b.txt": "beta\n",
    "c.txt": "gamma\n",
  });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const slow = defineTool({
  name: "Slow",
  description: "Waits, then answers.",
  inputSchema: {
    type: "object",
    properties: { ms: { type: "integer" }, tag: { type: "string" } },
    required: ["ms", "tag"],
  } as const,
  concurrency: "concurrent-safe",
  interrupt: "cooperative",
  execute: async (input: { ms: number; tag: string }, ctx) => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, input.ms);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      });
    });
    return ok(`slept ${input.tag}`);
  },
});
const boom = defineTool({
  name: "Boom",
  description: "Throws.",
  inputSchema: { type: "object" } as const,
  execute: async () => {
    throw new Error("kaboom");
  },
});
const hang = defineTool({
  name: "Hang",
  description: "Waits until aborted.",
  inputSchema: { type: "object" } as const,
  interrupt: "cooperative",
  execute: (_input, ctx) =>
    new Promise((resolve) =>
      ctx.signal.addEventListener("abort", () => resolve({ content: "stopped", isError: true })),
    ),
});

async function start(script: ScriptStep[], extra: Partial<RunnerOptions> = {}) {
  fake = await startFakeAnthropic(script);
  return createRunner({
    projectDir: dir,
    env: {},
    model: { apiKey: "test-key", baseURL: fake.url, maxRetries: 2 },
    tools: { extra: [slow, boom, hang] },
    backoff: () => 0,
    ...extra,
  });
}

const resultsSent = (i: number) => sentIn(fake as FakeAnthropic, i);

const toolNames = (i: number) =>
  (fake?.requests[i]?.body.tools ?? []).map((t) => (t as { name: string }).name);

describe("the run loop against a fake Anthropic server", () => {
  it("streams text, offers only allowed tools, and ends on end_turn", async () => {
    const runner = await start([text("Hello there.")]);
    const { events, result } = await drain(runner.run("hi"));
    expect(result.outcome).toBe("done");
    expect(result.text).toBe("Hello there.");
    expect(
      events
        .filter((e) => e.type === "message_delta")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Hello there.");
    expect(toolNames(0)).toEqual(["Read", "Write", "Glob", "Grep", "Bash", "Slow", "Boom", "Hang"]);
    const body = fake?.requests[0]?.body;
    expect(body?.model).toBe("claude-sonnet-5-5");
    // agent.md's body, then the environment block (this project has no CLAUDE.md).
    expect(body?.system).toEqual([
      {
        type: "text",
        text: expect.stringMatching(/^You test things\.\n\n/),
        cache_control: { type: "ephemeral" },
      },
    ]);
    const system = ((body?.system ?? []) as { text: string }[])[0]?.text ?? "";
    expect(system).toContain(`<env>\nWorking directory: ${dir}\nIs directory a git repo: No\n`);
    expect((body?.tools?.at(-1) as { cache_control?: unknown } | undefined)?.cache_control).toEqual({
      type: "ephemeral",
    });
    expect(body?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
    ]);
  });

  it("answers every tool_use with one tool_result, in order: allowed, denied, hallucinated, invalid, crashed", async () => {
    const runner = await start([
      calls(
        use("Read", { file_path: "a.txt" }, "t1"),
        use("Bash", { command: "rm -rf ./no-such-dir" }, "t2"),
        use("Teleport", { where: "moon" }, "t3"),
        use("Read", { file_paht: "a.txt" }, "t4"),
        use("Boom", {}, "t5"),
      ),
      text("done"),
    ]);
    const { result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("done");
    const sent = resultsSent(1);
    expect(sent.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ["t1", false],
      ["t2", true],
      ["t3", true],
      ["t4", true],
      ["t5", true],
    ]);
    expect(sent[0]?.content).toBe("     1\talpha");
    expect(sent[1]?.content).toBe(
      "Bash(rm -rf ./no-such-dir) is not allowed: this run allows Bash only for: git:*. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(sent[2]?.content).toBe(
      "Teleport is not allowed in this run. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(sent[3]?.content).toBe(
      "Invalid input for Read: unknown parameter 'file_paht' — did you mean 'file_path'? The tool was not executed.",
    );
    expect(sent[4]?.content).toBe("Boom failed: kaboom");
  });

  it("runs a batch of 3 reads and 1 write in order (a write is not concurrent-safe)", async () => {
    const runner = await start([
      calls(
        use("Read", { file_path: "a.txt" }),
        use("Read", { file_path: "b.txt" }),
        use("Write", { file_path: "new.txt", content: "x" }),
        use("Read", { file_path: "c.txt" }),
      ),
      text("ok"),
    ]);
    const { events } = await drain(runner.run("go"));
    const order = events
      .filter((e) => e.type === "tool_start" || e.type === "tool_end")
      .map((e) => `${e.type}:${(e as { name: string }).name}`);
    expect(order).toEqual([
      "tool_start:Read",
      "tool_end:Read",
      "tool_start:Read",
      "tool_end:Read",
      "tool_start:Write",
      "tool_end:Write",
      "tool_start:Read",
      "tool_end:Read",
    ]);
    expect(resultsSent(1).map((r) => r.is_error ?? false)).toEqual([false, false, false, false]);
  });

  it("runs 8 concurrent-safe calls in parallel, at most 4 at a time, results in tool_use order", async () => {
    const uses = Array.from({ length: 8 }, (_, i) =>
      use("Slow", { ms: 150 - i * 10, tag: `n${i}` }, `s${i}`),
    );
    const runner = await start([calls(...uses), text("ok")]);
    const { events } = await drain(runner.run("go"));
    expect(resultsSent(1).map((r) => r.content)).toEqual(uses.map((_, i) => `slept n${i}`));
    let running = 0;
    let peak = 0;
    for (const e of events) {
      if (e.type === "tool_start") peak = Math.max(peak, ++running);
      if (e.type === "tool_end") running--;
    }
    expect(peak).toBe(4);
  });

  it("retries 429 and says so, then succeeds", async () => {
    const runner = await start([
      { kind: "http-error", status: 429, headers: { "retry-after-ms": "5" } },
      text("after retry"),
    ]);
    const { events, result } = await drain(runner.run("hi"));
    expect(result.text).toBe("after retry");
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { reason: string }).reason)).toEqual([
      "HTTP 429",
    ]);
    expect(fake?.requests).toHaveLength(2);
  });

  it("retries 529 overloaded, and ends with a clear error when retries run out", async () => {
    const runner = await start([
      { kind: "http-error", status: 529, headers: { "retry-after-ms": "1" } },
      { kind: "http-error", status: 529, headers: { "retry-after-ms": "1" } },
      { kind: "http-error", status: 529, headers: { "retry-after-ms": "1" } },
    ]);
    const { events, result } = await drain(runner.run("hi"));
    expect(result.outcome).toBe("error");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    const err = events.find((e) => e.type === "error") as { code: string; message: string };
    expect(err.code).toBe("overloaded_error");
    expect(err.message).toBe(
      `the model API at ${fake?.url} answered HTTP 529 (overloaded_error): fake server: scripted 529 overloaded_error`,
    );
  });

  it("retries an overloaded_error inside the stream before any output", async () => {
    const runner = await start([{ kind: "sse-error", before: [] }, text("second try")]);
    const { events, result } = await drain(runner.run("hi"));
    expect(result.text).toBe("second try");
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { reason: string }).reason)).toEqual([
      "overloaded_error in the response stream",
    ]);
  });

  it("ends with an error when the stream fails after output, and never leaves a tool_use unanswered", async () => {
    const runner = await start([{ kind: "sse-error", before: [{ type: "text", text: "partial" }] }]);
    const { events, result } = await drain(runner.run("hi"));
    expect(result.outcome).toBe("error");
    expect((events.find((e) => e.type === "error") as { message: string }).message).toContain(
      "after the response had started",
    );
    expect(result.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("reports a connection reset after output, and malformed SSE, as errors; retries a reset before output", async () => {
    const runner = await start([
      {
        kind: "reset",
        before: [
          { type: "text", text: "par" },
          { type: "text", text: "tial" },
        ],
      },
      { kind: "malformed" },
      { kind: "reset", before: [] },
      text("recovered"),
    ]);
    const r1 = await drain(runner.run("hi"));
    expect(r1.result.outcome).toBe("error");
    expect((r1.events.find((e) => e.type === "error") as { code: string }).code).toBe("connection_error");
    const r2 = await drain(runner.run("hi"));
    expect(r2.result.outcome).toBe("error");
    expect((r2.events.find((e) => e.type === "error") as { code: string; message: string }).message).toBe(
      "the model API sent a response stream that could not be read",
    );
    const r3 = await drain(runner.run("hi"));
    expect(r3.result.text).toBe("recovered");
    expect(r3.events.filter((e) => e.type === "retry")).toHaveLength(1);
  });

  it("aborts during a slow stream: abort event, valid conversation", async () => {
    const runner = await start([{ kind: "hang", before: [{ type: "text", text: "thinking..." }] }]);
    const ac = new AbortController();
    const handle = runner.run("hi", { signal: ac.signal });
    const events: RunEvent[] = [];
    for await (const e of handle) {
      events.push(e);
      if (e.type === "message_delta") ac.abort();
    }
    const result = await handle.result();
    expect(result.outcome).toBe("aborted");
    expect(events.map((e) => e.type)).toContain("abort");
    expect(result.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("aborts during a hanging tool: every tool_use gets an interrupted result", async () => {
    const runner = await start([calls(use("Hang", {}, "h1"), use("Read", { file_path: "a.txt" }, "h2"))]);
    const ac = new AbortController();
    const handle = runner.run("hi", { signal: ac.signal });
    for await (const e of handle) if (e.type === "tool_start") ac.abort();
    const result = await handle.result();
    expect(result.outcome).toBe("aborted");
    const last = result.messages.at(-1) as { role: string; content: ToolResultBlockParam[] };
    expect(last.role).toBe("user");
    expect(last.content.map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ["h1", true],
      ["h2", true],
    ]);
    expect(last.content[1]?.content).toBe(
      "Interrupted: the run was aborted before this call finished. The tool was not executed.",
    );
  });

  it("never executes a tool_use cut off by max_tokens, and lets the model try again", async () => {
    const runner = await start([
      {
        kind: "message",
        content: [
          {
            type: "tool_use",
            id: "cut",
            name: "Write",
            input: {},
            partialJson: '{"file_path":"x.txt","content":"hal',
          },
        ],
      },
      text("retried smaller"),
    ]);
    const { events, result } = await drain(runner.run("write"));
    expect(events.some((e) => e.type === "limit" && e.kind === "max_tokens")).toBe(true);
    expect(events.some((e) => e.type === "tool_start")).toBe(false);
    expect(resultsSent(1)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "cut",
        content:
          "The response hit max_tokens before this call was complete, so it was not executed. Send it again, shorter.",
        is_error: true,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(result.text).toBe("retried smaller");
  });

  it("sends again on pause_turn, and stops on refusal", async () => {
    const runner = await start([
      { kind: "message", content: [{ type: "text", text: "part one" }], stopReason: "pause_turn" },
      { kind: "message", content: [{ type: "text", text: "no" }], stopReason: "refusal" },
    ]);
    const { events, result } = await drain(runner.run("hi"));
    expect(fake?.requests).toHaveLength(2);
    expect(fake?.requests[1]?.body.messages.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "part one" }],
    });
    expect(result.outcome).toBe("declined");
    expect(events.some((e) => e.type === "refusal")).toBe(true);
  });

  it("ends at maxIterations with a limit event and a valid conversation", async () => {
    const loop = () => calls(use("Read", { file_path: "a.txt" }));
    const runner = await start([loop(), loop(), loop(), loop()], { limits: { maxIterations: 3 } });
    const { events, result } = await drain(runner.run("loop"));
    expect(result.outcome).toBe("limit");
    expect(result.turns).toBe(3);
    expect(fake?.requests).toHaveLength(3);
    expect((events.find((e) => e.type === "limit") as { message: string }).message).toContain(
      "maxIterations",
    );
    expect(result.messages.at(-1)?.role).toBe("user");
  });

  it("answers a tool_use even under end_turn, and sends a string input back as an object", async () => {
    const runner = await start([
      { kind: "message", content: [use("Read", '{"file_path":"a.txt"}', "s1")], stopReason: "end_turn" },
      text("ok"),
    ]);
    const { result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("done");
    expect(resultsSent(1).map((r) => [r.tool_use_id, r.content])).toEqual([["s1", "     1\talpha"]]);
    const assistant = fake?.requests[1]?.body.messages[1] as MessageParam;
    expect(assistant.content).toEqual([
      { type: "tool_use", id: "s1", name: "Read", input: { file_path: "a.txt" } },
    ]);
  });

  it("counts usage and cost per turn and per run", async () => {
    const runner = await start([
      {
        ...calls(use("Read", { file_path: "a.txt" })),
        usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500 },
      },
      { ...text("ok"), usage: { input_tokens: 2000, output_tokens: 200, cache_creation_input_tokens: 100 } },
    ]);
    const { events, result } = await drain(runner.run("hi"));
    expect(events.filter((e) => e.type === "usage")).toHaveLength(2);
    expect(result.usage).toEqual({
      input_tokens: 3000,
      output_tokens: 300,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 500,
    });
    expect(result.costUsd).toBeCloseTo((3000 * 3 + 300 * 15 + 100 * 3.75 + 500 * 0.3) / 1e6, 10);
  });

  it("writes a transcript and resumes a session with its conversation", async () => {
    const runner = await start([
      calls(use("Read", { file_path: "a.txt" }, "r1")),
      text("first answer"),
      text("second answer"),
    ]);
    const first = await drain(runner.run("question one"));
    const file = path.join(dir, ".agentmd/sessions", `${first.result.sessionId}.jsonl`);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent);
    expect(lines[0]?.type).toBe("run_start");
    expect(lines.at(-1)?.type).toBe("run_end");
    const second = await drain(runner.run("question two", { resume: first.result.sessionId }));
    expect(second.result.text).toBe("second answer");
    const sent = fake?.requests[2]?.body.messages as MessageParam[];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(sent[0]?.content).toBe("question one");
  });

  it("refuses to start when no allowed tool exists, and never reads that as unrestricted", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: AskUserQuestion\n---\nx\n" });
    const runner = await start([text("should not be asked")]);
    const { result } = await drain(runner.run("hi"));
    expect(result.outcome).toBe("refused");
    expect(fake?.requests).toHaveLength(0);
  });
});

describe("Bash calls that only read run beside each other", () => {
  const overlap = (events: RunEvent[]) => {
    let running = 0;
    let peak = 0;
    for (const e of events) {
      if (e.type === "tool_start") peak = Math.max(peak, ++running);
      if (e.type === "tool_end") running--;
    }
    return peak;
  };

  it("four read-only calls in one batch overlap; a batch with a write does not", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash\n---\nx\n" });
    const runner = await start([
      calls(...["ls", "cat a.txt", "git status", "wc -l b.txt"].map((command) => use("Bash", { command }))),
      calls(use("Bash", { command: "ls" }), use("Bash", { command: "touch c.txt" })),
      text("done"),
    ]);
    const { events } = await drain(runner.run("go"));
    const byTurn = (turn: number) => {
      const out: RunEvent[] = [];
      let t = 0;
      for (const e of events) {
        if (e.type === "turn_start") t = e.turn;
        else if (t === turn) out.push(e);
      }
      return out;
    };
    expect(overlap(byTurn(1))).toBe(4);
    expect(overlap(byTurn(2))).toBe(1);
  });
});
