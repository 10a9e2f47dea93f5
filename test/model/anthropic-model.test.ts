import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAnthropicModel } from "../../src/model/anthropic.js";
import type { ModelRequest, TurnContext } from "../../src/model/model.js";
import { type Exchange, summariseRequest } from "../../src/model/record-replay.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";

let fake: FakeAnthropic | undefined;
const dirs: (() => void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await fake?.close();
  fake = undefined;
  for (const cleanup of dirs.splice(0)) cleanup();
});

function context(notices: string[] = []): TurnContext {
  return {
    signal: new AbortController().signal,
    onText: () => {},
    onRetry: () => {},
    onNotice: (m) => notices.push(m),
  };
}

const request = (model: string, results: string): ModelRequest => ({
  model,
  max_tokens: 64,
  messages: [
    { role: "user", content: "go" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: results }] },
  ],
});

const SSE = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

describe("the Anthropic model", () => {
  it("leaves the process's console alone, and prints the SDK's warning for a model once per model", async () => {
    const before = console.warn;
    fake = await startFakeAnthropic([
      { kind: "message", content: [{ type: "text", text: "one" }] },
      { kind: "message", content: [{ type: "text", text: "two" }] },
      { kind: "message", content: [{ type: "text", text: "three" }] },
    ]);
    const model = createAnthropicModel({ env: {}, apiKey: "k", baseURL: fake.url, maxRetries: 0 });
    expect(console.warn).toBe(before);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const text of ["one", "two", "three"]) {
      const turn = await model.turn(
        { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] },
        context(),
      );
      expect(turn.kind === "message" && turn.message.content[0]).toMatchObject({ type: "text", text });
    }
    expect(fake.requests).toHaveLength(3);
    const deprecation = warn.mock.calls.filter((c) =>
      String(c[0]).startsWith("The model 'claude-sonnet-4-5'"),
    );
    expect(deprecation).toHaveLength(1);
  });

  it("tells a replay's notice to the turn that met it, not to the process", async () => {
    const { dir, cleanup } = tempDir();
    dirs.push(cleanup);
    const recording = path.join(dir, "rec.jsonl");
    const recorded = request("claude-sonnet-4-6", "as recorded");
    const exchange: Exchange = {
      request: summariseRequest(JSON.stringify({ ...recorded, stream: true })),
      response: { status: 200, contentType: "text/event-stream", body: SSE },
    };
    writeFileSync(recording, `${JSON.stringify(exchange)}\n${JSON.stringify(exchange)}\n`);
    const model = createAnthropicModel({ env: {}, replay: recording });
    const same: string[] = [];
    const differs: string[] = [];
    const first = await model.turn(recorded, context(same));
    const second = await model.turn(request("claude-sonnet-4-6", "on this machine"), context(differs));
    expect([first.kind, second.kind]).toEqual(["message", "message"]);
    expect(same).toEqual([]);
    expect(differs).toEqual(["tool results before request 2 differ from the recording; replaying it anyway"]);
  });
});
