import Anthropic, {
  AnthropicError,
  APIError,
  APIUserAbortError,
  BadRequestError,
  InternalServerError,
  OverloadedError,
  RateLimitError,
} from "@anthropic-ai/sdk";
import type { MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";

const fakes: FakeAnthropic[] = [];

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function fake(script: ScriptStep[]): Promise<FakeAnthropic> {
  const f = await startFakeAnthropic(script);
  fakes.push(f);
  return f;
}

function client(f: FakeAnthropic, opts: { maxRetries?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: "test", baseURL: f.url, maxRetries: opts.maxRetries ?? 0, logLevel: "off" });
}

// Not claude-sonnet-4-5: SDK 1.14 console.warn()s (whatever the logLevel) on every request for a deprecated model.
const PARAMS: MessageCreateParamsBase = {
  model: "claude-sonnet-4-6",
  max_tokens: 256,
  messages: [{ role: "user", content: "hi" }],
};

/** The rejection of `p`, failing the test if it fulfils. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the promise to reject");
}

describe("fake Anthropic server, driven by the real SDK", () => {
  it("streams text deltas in order and the final message carries the text", async () => {
    const f = await fake([{ kind: "message", content: [{ type: "text", text: "Hello, streaming world!" }] }]);
    const stream = client(f).messages.stream(PARAMS);
    const deltas: string[] = [];
    const eventTypes: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    stream.on("streamEvent", (event) => eventTypes.push(event.type));
    const msg = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.length).toBeLessThanOrEqual(3);
    expect(deltas.join("")).toBe("Hello, streaming world!");
    expect(eventTypes[0]).toBe("message_start");
    expect(eventTypes[1]).toBe("content_block_start");
    expect(eventTypes.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(msg).toMatchObject({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      stop_reason: "end_turn",
      stop_sequence: null,
      content: [{ type: "text", text: "Hello, streaming world!" }],
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(f.remaining()).toBe(0);
  });

  it("sends well-formed SSE with at least one ping (which the SDK hides)", async () => {
    const f = await fake([{ kind: "message", content: [{ type: "text", text: "ok" }] }]);
    const res = await fetch(`${f.url}/v1/messages`, { method: "POST", body: JSON.stringify(PARAMS) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const raw = await res.text();
    const events = raw.split("\n\n").filter((e) => e !== "");
    for (const e of events) expect(e).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
    const names = events.map((e) => /^event: ([a-z_]+)/.exec(e)?.[1]);
    expect(names).toContain("ping");
    expect(names[0]).toBe("message_start");
    expect(names.at(-1)).toBe("message_stop");
    expect(names.filter((n) => n === "content_block_delta")).toHaveLength(2);
  });

  it("applies custom usage, model, stop reason and delays", async () => {
    const f = await fake([
      {
        kind: "message",
        content: [{ type: "text", text: "abc" }],
        stopReason: "stop_sequence",
        model: "claude-opus-4-1",
        usage: {
          input_tokens: 123,
          output_tokens: 45,
          cache_creation_input_tokens: 6,
          cache_read_input_tokens: 7,
        },
        delayMs: 40,
        chunkDelayMs: 5,
      },
    ]);
    const msg = await client(f).messages.stream(PARAMS).finalMessage();
    expect(msg.model).toBe("claude-opus-4-1");
    expect(msg.stop_reason).toBe("stop_sequence");
    expect(msg.usage).toMatchObject({
      input_tokens: 123,
      output_tokens: 45,
      cache_creation_input_tokens: 6,
      cache_read_input_tokens: 7,
    });
  });

  it("streams a server-side web search as the SDK's own accumulator reads it, with its usage", async () => {
    const result = [
      { type: "web_search_result", title: "T", url: "https://a.io/", encrypted_content: "x", page_age: null },
    ];
    const f = await fake([
      {
        kind: "message",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: result },
          { type: "text", text: "answer" },
        ],
        usage: { server_tool_use: { web_search_requests: 1 } },
      },
    ]);
    const msg = await client(f).messages.stream(PARAMS).finalMessage();
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.content).toMatchObject([
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: result },
      { type: "text", text: "answer" },
    ]);
    expect(msg.usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
  });

  it("streams a tool_use whose input the SDK parses, with stop_reason tool_use", async () => {
    const input = { path: "src/a.ts", lines: [1, 2, 3], opts: { quote: 'say "hi" \u00e9' } };
    const f = await fake([
      {
        kind: "message",
        content: [
          { type: "text", text: "Reading it." },
          { type: "tool_use", name: "Read", input },
          { type: "tool_use", id: "toolu_custom", name: "Glob", input: {} },
        ],
      },
    ]);
    const msg = await client(f).messages.stream(PARAMS).finalMessage();
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content).toEqual([
      { type: "text", text: "Reading it." },
      { type: "tool_use", id: "toolu_1_1", name: "Read", input },
      { type: "tool_use", id: "toolu_custom", name: "Glob", input: {} },
    ]);
  });

  it("records each request with the body the client sent", async () => {
    const f = await fake([
      { kind: "message", content: [{ type: "text", text: "one" }] },
      { kind: "message", content: [{ type: "text", text: "two" }] },
    ]);
    const c = client(f);
    const tools: MessageCreateParamsBase["tools"] = [
      {
        name: "Read",
        description: "Read a file",
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ];
    await c.messages.stream({ ...PARAMS, system: "be brief", tools }).finalMessage();
    await c.messages
      .stream({
        ...PARAMS,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "one" },
          { role: "user", content: "again" },
        ],
      })
      .finalMessage();

    expect(f.requests).toHaveLength(2);
    const [first, second] = f.requests;
    expect(first?.method).toBe("POST");
    expect(first?.path).toBe("/v1/messages");
    // SDK 1.14 sends the API key as a bearer token, not as x-api-key.
    expect(first?.headers.authorization).toBe("Bearer test");
    expect(first?.headers["x-stainless-helper-method"]).toBe("stream");
    expect(first?.headers["content-type"]).toBe("application/json");
    expect(first?.body).toEqual({ ...PARAMS, system: "be brief", tools, stream: true });
    expect(JSON.parse(first?.rawBody ?? "")).toEqual(first?.body);
    expect(second?.body.model).toBe("claude-sonnet-4-6");
    expect(second?.body.messages).toHaveLength(3);
    expect(second?.body.tools).toBeUndefined();
  });

  it("gives function steps the recorded request, and push() extends the script", async () => {
    const f = await fake([
      (req) => ({
        kind: "message",
        content: [{ type: "text", text: `you said ${JSON.stringify(req.body.messages)}` }],
      }),
    ]);
    expect(f.remaining()).toBe(1);
    f.push({ kind: "message", content: [{ type: "text", text: "pushed" }] });
    expect(f.remaining()).toBe(2);
    const c = client(f);
    expect(await c.messages.stream(PARAMS).finalText()).toBe('you said [{"role":"user","content":"hi"}]');
    expect(await c.messages.stream(PARAMS).finalText()).toBe("pushed");
    expect(f.remaining()).toBe(0);
  });

  it("answers a 429 with retry-after-ms, which the SDK retries into a success", async () => {
    const f = await fake([
      { kind: "http-error", status: 429, headers: { "retry-after-ms": "10" } },
      { kind: "message", content: [{ type: "text", text: "after retry" }] },
    ]);
    const msg = await client(f, { maxRetries: 2 }).messages.stream(PARAMS).finalMessage();
    expect(msg.content).toEqual([{ type: "text", text: "after retry" }]);
    expect(f.requests).toHaveLength(2);
    expect(f.requests[0]?.body).toEqual(f.requests[1]?.body);
    expect(f.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("maps http errors to the SDK's status classes with the error type", async () => {
    const f = await fake([
      { kind: "http-error", status: 429, message: "slow down" },
      { kind: "http-error", status: 529 },
      { kind: "http-error", status: 400, errorType: "invalid_request_error", message: "bad tools" },
    ]);
    const c = client(f);

    const rate = await rejection(c.messages.stream(PARAMS).finalMessage());
    expect(rate).toBeInstanceOf(RateLimitError);
    expect(rate).toMatchObject({
      status: 429,
      type: "rate_limit_error",
      apiMessage: "slow down",
      requestID: "req_fake_1",
      error: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
    });

    const overloaded = await rejection(c.messages.stream(PARAMS).finalMessage());
    expect(overloaded).toBeInstanceOf(OverloadedError);
    expect(overloaded).toMatchObject({ status: 529, type: "overloaded_error" });

    const bad = await rejection(c.messages.stream(PARAMS).finalMessage());
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, type: "invalid_request_error", apiMessage: "bad tools" });
    expect(f.requests).toHaveLength(3);
  });

  it("rejects an sse-error with a plain APIError carrying the overloaded_error type", async () => {
    const f = await fake([{ kind: "sse-error", before: [{ type: "text", text: "partial answer" }] }]);
    const stream = client(f).messages.stream(PARAMS);
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    const err = await rejection(stream.finalMessage());

    expect(deltas.join("")).toBe("partial answer");
    expect(err).toBeInstanceOf(APIError);
    expect(err).not.toBeInstanceOf(OverloadedError);
    expect(err).toMatchObject({
      status: undefined,
      type: "overloaded_error",
      apiMessage: "Overloaded",
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    expect(f.requests).toHaveLength(1);
  });

  it("rejects an sse-error sent before any content, with a custom type", async () => {
    const f = await fake([{ kind: "sse-error", before: [], errorType: "api_error", message: "Internal" }]);
    const err = await rejection(client(f, { maxRetries: 2 }).messages.stream(PARAMS).finalMessage());
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: undefined, type: "api_error", apiMessage: "Internal" });
    expect(f.requests).toHaveLength(1); // a 200 that failed mid-stream is not retried
  });

  it("rejects a reset connection with an AnthropicError caused by the fetch failure", async () => {
    const f = await fake([
      { kind: "reset", before: [{ type: "text", text: "cut short" }] },
      { kind: "message", content: [{ type: "text", text: "still serving" }] },
    ]);
    const c = client(f, { maxRetries: 2 });
    const stream = c.messages.stream(PARAMS);
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    const err = await rejection(stream.finalMessage());

    expect(deltas.join("")).toBe("cut short");
    expect(err).toBeInstanceOf(AnthropicError);
    expect(err).not.toBeInstanceOf(APIError);
    expect(err).toMatchObject({ message: "terminated", cause: expect.any(TypeError) });
    expect(f.requests).toHaveLength(1); // not retried
    expect(await c.messages.stream(PARAMS).finalText()).toBe("still serving");
  });

  it("rejects a malformed event with an AnthropicError caused by a SyntaxError", async () => {
    const f = await fake([{ kind: "malformed" }]);
    const err = await rejection(client(f).messages.stream(PARAMS).finalMessage());
    expect(err).toBeInstanceOf(AnthropicError);
    expect(err).not.toBeInstanceOf(APIError);
    expect(err).toMatchObject({ cause: expect.any(SyntaxError) });
  });

  it("hangs until the client aborts, which rejects with APIUserAbortError", async () => {
    const f = await fake([
      { kind: "hang", before: [{ type: "text", text: "thinking..." }] },
      { kind: "message", content: [{ type: "text", text: "next" }] },
    ]);
    const c = client(f);
    const controller = new AbortController();
    const stream = c.messages.stream(PARAMS, { signal: controller.signal });
    let seen = "";
    stream.on("text", (d) => {
      seen += d;
      if (seen === "thinking...") controller.abort();
    });
    const err = await rejection(stream.finalMessage());

    expect(seen).toBe("thinking...");
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(stream.aborted).toBe(true);
    expect(await c.messages.stream(PARAMS).finalText()).toBe("next");
  });

  it("closes promptly while a hang is still open", async () => {
    const f = await startFakeAnthropic([{ kind: "hang", before: [] }]);
    const stream = client(f).messages.stream(PARAMS);
    const outcome = rejection(stream.finalMessage());
    await new Promise<void>((resolve) => stream.on("connect", () => resolve()));
    await f.close();
    expect(await outcome).toBeInstanceOf(AnthropicError);
    await f.close(); // idempotent
  });

  it("survives a client that disconnects from a slow stream", async () => {
    const f = await fake([
      { kind: "message", content: [{ type: "text", text: "a slow reply" }], chunkDelayMs: 30 },
      { kind: "message", content: [{ type: "text", text: "fine" }] },
    ]);
    const c = client(f);
    const stream = c.messages.stream(PARAMS);
    stream.on("text", () => stream.abort());
    expect(await rejection(stream.finalMessage())).toBeInstanceOf(APIUserAbortError);
    await f.settled(); // the server has tried to write to the gone client, and given up
    expect(await c.messages.stream(PARAMS).finalText()).toBe("fine");
  });

  it("finishes a tool_use cut off by max_tokens, keeping only the complete part of its input", async () => {
    const f = await fake([
      {
        kind: "message",
        content: [
          {
            type: "tool_use",
            name: "Write",
            input: { path: "a.ts", content: "hello world" },
            partialJson: '{"path": "a.ts", "content": "hel',
          },
        ],
      },
    ]);
    const msg = await client(f).messages.stream(PARAMS).finalMessage();
    expect(msg.stop_reason).toBe("max_tokens");
    expect(msg.content).toEqual([
      { type: "tool_use", id: "toolu_1_0", name: "Write", input: { path: "a.ts" } },
    ]);
  });

  it("answers 500 once the script is exhausted, recording the request and not inviting retries", async () => {
    const f = await fake([]);
    const err = await rejection(client(f, { maxRetries: 2 }).messages.stream(PARAMS).finalMessage());
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({
      status: 500,
      type: "api_error",
      apiMessage: "fake server: script exhausted",
      error: { type: "error", error: { type: "api_error", message: "fake server: script exhausted" } },
    });
    expect(f.requests).toHaveLength(1);
    expect(f.requests[0]?.body.model).toBe("claude-sonnet-4-6");
  });

  it("answers 404 to other routes without recording or consuming a step", async () => {
    const f = await fake([{ kind: "message", content: [] }]);
    const res = await fetch(`${f.url}/v1/models`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect(f.requests).toHaveLength(0);
    expect(f.remaining()).toBe(1);
  });
});
