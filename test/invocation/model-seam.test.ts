import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { ContentBlock, Message, StopReason } from "../../src/model/messages.js";
import type { Model, ModelRequest, TurnContext, TurnOutcome } from "../../src/model/model.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { writeFiles } from "../support/tools.js";

// A library user's own model: an object with `turn`, passed as `RunnerOptions.model`. No HTTP, no key.

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "a.txt": "alpha\n" });
});
afterEach(() => cleanup());

function message(content: ContentBlock[], stop: StopReason): TurnOutcome {
  const usage = {
    input_tokens: 3,
    output_tokens: 2,
    cache_creation: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
  const m: Message = {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model: "scripted-1",
    container: null,
    diagnostics: null,
    content,
    stop_reason: stop,
    stop_sequence: null,
    stop_details: null,
    usage,
  };
  return { kind: "message", message: m };
}

const text = (t: string): ContentBlock => ({ type: "text", text: t, citations: null });

/** A model that answers each request with the next step of a script, keeping what it was asked. */
function scripted(steps: ((request: ModelRequest, cx: TurnContext) => Promise<TurnOutcome> | TurnOutcome)[]) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    turn: async (request, cx) => {
      requests.push(structuredClone(request));
      const step = steps[requests.length - 1];
      return step ? step(request, cx) : { kind: "error", code: "api_error", message: "no more steps" };
    },
  };
  return { model, requests };
}

const MAIN = { name: "coder", "allowed-tools": "Read", body: "You read." };

describe("a Model of one's own as RunnerOptions.model", () => {
  it("drives a run with a tool call: the tool runs and its result is the model's next input", async () => {
    const { model, requests } = scripted([
      () =>
        message(
          [
            {
              type: "tool_use",
              id: "toolu_1",
              name: "Read",
              input: { file_path: "a.txt" },
              caller: { type: "direct" },
            },
          ],
          "tool_use",
        ),
      () => message([text("it says alpha")], "end_turn"),
    ]);
    // No API key anywhere: the Anthropic client is never made when a model is given.
    const runner = createRunner({
      cwd: dir,
      env: {},
      projectDir: false,
      main: MAIN,
      model: { ...model, id: "scripted-1" },
    });
    const { result, events } = await drain(runner.run("what does a.txt say?"));
    expect(result).toMatchObject({ outcome: "done", text: "it says alpha", turns: 2 });
    expect(ofType(events, "run_start")[0]).toMatchObject({ model: "scripted-1", tools: ["Read"] });
    expect(requests.map((r) => r.model)).toEqual(["scripted-1", "scripted-1"]);
    const answer = requests[1]?.messages.at(-1);
    expect(answer?.role).toBe("user");
    expect(JSON.stringify(answer?.content)).toContain("alpha");
    expect(ofType(events, "tool_end")[0]).toMatchObject({
      id: "toolu_1",
      decision: "allowed",
      isError: false,
    });
  });

  it("tells each run its own notices when two runs on one runner are in their turns at once", async () => {
    // Both turns wait until both have started, so each notice is told while the other run is live.
    let started = 0;
    let bothStarted: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const turn = async (request: ModelRequest, cx: TurnContext) => {
      started++;
      if (started === 2) bothStarted();
      await both;
      const prompt = JSON.stringify(request.messages[0]?.content);
      cx.onNotice?.(`notice for ${prompt.includes("first") ? "first" : "second"}`);
      return message([text("ok")], "end_turn");
    };
    const model: Model = { turn };
    const runner = createRunner({ cwd: dir, env: {}, projectDir: false, main: MAIN, model });
    const [first, second] = await Promise.all([drain(runner.run("first")), drain(runner.run("second"))]);
    const notices = (run: typeof first) =>
      ofType(run.events, "warning")
        .filter((w) => w.message.startsWith("notice for"))
        .map((w) => [w.message, w.runId]);
    expect(notices(first)).toEqual([["notice for first", first.result.runId]]);
    expect(notices(second)).toEqual([["notice for second", second.result.runId]]);
    expect(first.result.runId).not.toBe(second.result.runId);
  });
});
