import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type RunnerOptions } from "../../src/index.js";
import type { RunEvent, RunResult } from "../../src/loop/events.js";
import { conversationOf } from "../../src/loop/transcript.js";
import { defineTool, ok } from "../../src/tools/index.js";
import { conversationProblems } from "../support/conversation.js";
import {
  type FakeAnthropic,
  type ScriptStep,
  type StopReason,
  startFakeAnthropic,
} from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { calls, text, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/** However a run ends, its result is a conversation the API takes, and its run_end says the same as its result. */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Hang, Tagged(blue)\n---\nYou test things.\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
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

/** A tool whose own permission rule breaks while its call is judged. */
const tagged = defineTool({
  name: "Tagged",
  description: "Answers a tag.",
  inputSchema: { type: "object", properties: { tag: { type: "string" } }, required: ["tag"] } as const,
  permission: {
    kind: "custom",
    field: "tag",
    custom: {
      validate: () => undefined,
      matches: () => {
        throw new Error("the tag rule broke");
      },
    },
  },
  execute: async (input: { tag: string }) => ok(`tag ${input.tag}`),
});

async function start(script: ScriptStep[], extra: Partial<RunnerOptions> = {}) {
  fake = await startFakeAnthropic(script);
  return createRunner({
    projectDir: dir,
    env: {},
    userDir: false,
    model: { apiKey: "k", baseURL: fake.url, maxRetries: 0 },
    tools: { extra: [hang, tagged] },
    backoff: () => 0,
    ...extra,
  });
}

/** Runs `prompt`, aborting at the first event of type `abortOn`. */
async function runOnce(
  runner: Awaited<ReturnType<typeof start>>,
  prompt: string,
  abortOn?: RunEvent["type"],
): Promise<{ events: RunEvent[]; result: RunResult }> {
  const ac = new AbortController();
  const handle = runner.run(prompt, { signal: ac.signal });
  const events: RunEvent[] = [];
  for await (const e of handle) {
    events.push(e);
    if (e.type === abortOn) ac.abort();
  }
  return { events, result: await handle.result() };
}

/** The run_end event and the result agree, and the turns counted are the turns started. */
function expectOneEnd(events: readonly RunEvent[], result: RunResult): void {
  const [end, ...more] = ofType(events, "run_end");
  expect(more).toEqual([]);
  const { outcome, text: said, turns, usage, costUsd, costUnknown } = result;
  expect(end).toMatchObject({ outcome, text: said, turns, usage, costUsd });
  expect(end?.costUnknown).toBe(costUnknown);
  expect(turns).toBe(ofType(events, "turn_start").length);
}

/** Valid to send again, and exactly what a resume rebuilds from the run's events. */
function expectValidConversation(events: readonly RunEvent[], result: RunResult): void {
  expect(conversationProblems(result.messages)).toEqual([]);
  expect(conversationOf(events)).toEqual(result.messages);
}

const read = (id: string) => use("Read", { file_path: "a.txt" }, id);
const stopping = (stopReason: StopReason, ...content: ReturnType<typeof use>[]): ScriptStep => ({
  kind: "message",
  content: [{ type: "text", text: `stopping: ${stopReason}` }, ...content],
  stopReason,
});
const tooLong: ScriptStep = {
  kind: "http-error",
  status: 400,
  errorType: "invalid_request_error",
  message: "prompt is too long: 210000 tokens > 200000 maximum",
};

describe("every tool_use is answered, whatever ends the run", () => {
  it("a refusal that came with tool calls answers each of them, not run", async () => {
    const runner = await start([stopping("refusal", read("r1"), use("Hang", {}, "r2"))]);
    const { events, result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("declined");
    expect(ofType(events, "tool_start")).toEqual([]);
    expect(result.messages.at(-1)).toEqual({
      role: "user",
      content: ["r1", "r2"].map((id) => ({
        type: "tool_result",
        tool_use_id: id,
        content: "Not run: the model stopped with refusal, so this call was not executed.",
        is_error: true,
      })),
    });
    expectValidConversation(events, result);
    // The transcript says what the result says: the calls were answered in a turn_end.
    expect(ofType(events, "turn_end").at(-1)?.toolResults).toEqual(
      (result.messages.at(-1) as { content: unknown }).content,
    );
  });

  const scenarios: readonly {
    readonly name: string;
    readonly script: ScriptStep[];
    readonly abortOn?: RunEvent["type"];
    readonly limits?: RunnerOptions["limits"];
    readonly outcome: RunResult["outcome"];
  }[] = [
    { name: "end_turn", script: [calls(read("a")), text("done")], outcome: "done" },
    {
      name: "refusal after a tool round",
      script: [calls(read("a")), stopping("refusal", read("b"))],
      outcome: "declined",
    },
    { name: "max_tokens with no call", script: [stopping("max_tokens")], outcome: "limit" },
    {
      name: "max_tokens cutting a call",
      script: [
        {
          kind: "message",
          content: [{ type: "tool_use", id: "c", name: "Read", input: {}, partialJson: '{"file_' }],
        },
        text("ok"),
      ],
      outcome: "done",
    },
    {
      name: "pause_turn, then a call, then the end",
      script: [stopping("pause_turn"), stopping("pause_turn", read("p")), text("done")],
      outcome: "done",
    },
    {
      name: "stop_sequence with a call",
      script: [stopping("stop_sequence", read("s")), text("done")],
      outcome: "done",
    },
    {
      name: "an error mid-turn after a tool round",
      script: [calls(read("a")), { kind: "sse-error", before: [{ type: "text", text: "half" }] }],
      outcome: "error",
    },
    {
      name: "abort while the model streams",
      script: [calls(read("a")), { kind: "hang", before: [{ type: "text", text: "…" }] }],
      abortOn: "message_delta",
      outcome: "aborted",
    },
    {
      name: "abort while a tool runs",
      script: [calls(use("Hang", {}, "h"), read("r"))],
      abortOn: "tool_start",
      outcome: "aborted",
    },
    {
      name: "the turn limit",
      script: [calls(read("a")), calls(read("b")), calls(read("c"))],
      limits: { maxIterations: 2 },
      outcome: "limit",
    },
    { name: "too long, and nothing to compact", script: [tooLong], outcome: "error" },
    {
      name: "the context window exceeded",
      script: [stopping("model_context_window_exceeded"), { kind: "http-error", status: 500 }],
      outcome: "error",
    },
  ];

  it.each(scenarios)("$name: a valid conversation, one end", async (s) => {
    const runner = await start(s.script, s.limits ? { limits: s.limits } : {});
    const { events, result } = await runOnce(runner, "go", s.abortOn);
    expect(result.outcome).toBe(s.outcome);
    expectValidConversation(events, result);
    expectOneEnd(events, result);
  });

  it("any script of responses, with any stop reasons, leaves a valid conversation (property)", async () => {
    const stops: StopReason[] = [
      "end_turn",
      "tool_use",
      "max_tokens",
      "stop_sequence",
      "pause_turn",
      "refusal",
    ];
    const response = fc.record({
      stop: fc.constantFrom(...stops),
      calls: fc.nat({ max: 2 }),
      said: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(response, { minLength: 1, maxLength: 4 }), async (responses) => {
        let n = 0;
        const script: ScriptStep[] = responses.map((r) => ({
          kind: "message",
          content: [
            ...(r.said || r.calls === 0 ? [{ type: "text" as const, text: "words" }] : []),
            ...Array.from({ length: r.calls }, () => read(`u${n++}`)),
          ],
          stopReason: r.stop,
        }));
        const runner = await start([...script, text("the end")], { limits: { maxIterations: 4 } });
        const { events, result } = await drain(runner.run("go"));
        await fake?.close();
        expectValidConversation(events, result);
        expectOneEnd(events, result);
      }),
      { numRuns: 25 },
    );
  });
});

describe("run_end and the result come from one end", () => {
  it("a too-long request whose compaction fails counts the turn it started", async () => {
    const runner = await start([text("earlier answer"), tooLong, { kind: "http-error", status: 500 }]);
    const first = await drain(runner.run("start"));
    const { events, result } = await drain(runner.run("go on", { resume: first.result.sessionId }));
    expect(result.outcome).toBe("error");
    expect(ofType(events, "warning").map((w) => w.message)).toEqual([
      expect.stringContaining("the conversation could not be compacted"),
    ]);
    expect(result.turns).toBe(1);
    expectOneEnd(events, result);
  });

  it("a too-long request compacted and sent again is one turn", async () => {
    const runner = await start([text("earlier answer"), tooLong, text("SUMMARY"), text("answer")]);
    const first = await drain(runner.run("start"));
    const { events, result } = await drain(runner.run("go on", { resume: first.result.sessionId }));
    expect(result.text).toBe("answer");
    expect(ofType(events, "turn_start").map((e) => e.turn)).toEqual([1]);
    expectOneEnd(events, result);
  });
});

describe("a call whose judging throws", () => {
  it("is recorded as an error, not as allowed, and answered is_error", async () => {
    const runner = await start([calls(use("Tagged", { tag: "blue" }, "t1")), text("ok")]);
    const { events, result } = await drain(runner.run("go"));
    const [end] = ofType(events, "tool_end");
    expect(end).toMatchObject({ id: "t1", decision: "error", isError: true });
    expect(end?.content).toContain("the tag rule broke");
    expect(result.outcome).toBe("done");
    const answer = (result.messages[2] as { content: { is_error?: boolean; content: unknown }[] }).content[0];
    expect(answer).toMatchObject({ is_error: true, content: end?.content });
  });
});

describe("a call waiting for a user's approval", () => {
  const write = calls(use("Write", { file_path: "b.txt", content: "x" }, "w1"));
  const asksForWrite = () =>
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Write\n---\nx\n",
      ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Write"] } }),
    });

  it("is interrupted when the run is aborted while no one answers", async () => {
    asksForWrite();
    const ac = new AbortController();
    const runner = await start([write, text("never asked")], {
      permissions: {
        approve: () => {
          ac.abort();
          return new Promise(() => {});
        },
      },
    });
    const handle = runner.run("go", { signal: ac.signal });
    const { events, result } = await drain(handle);
    expect(result.outcome).toBe("aborted");
    expect(ofType(events, "tool_end").map((e) => [e.id, e.decision])).toEqual([["w1", "interrupted"]]);
    expectValidConversation(events, result);
  });

  it("is denied when the approver fails", async () => {
    asksForWrite();
    const runner = await start([write, text("ok")], {
      permissions: { approve: () => Promise.reject(new Error("no terminal")) },
    });
    const { events, result } = await drain(runner.run("go"));
    expect(result.outcome).toBe("done");
    expect(ofType(events, "tool_end").map((e) => [e.id, e.decision, e.isError])).toEqual([
      ["w1", "denied", true],
    ]);
  });
});
