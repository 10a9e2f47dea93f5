/**
 * A scripted fake of the Anthropic Messages API streaming endpoint (`POST /v1/messages`).
 *
 * It listens on 127.0.0.1 over real HTTP and answers with real server-sent events, so tests can drive the
 * real `@anthropic-ai/sdk` client (`new Anthropic({ baseURL: fake.url, ... })`) end to end. Each request
 * consumes the next scripted step; every request is recorded before it is answered.
 *
 * What the SDK (v1.14.0, `client.messages.stream()` + `finalMessage()`) does with each scripted failure
 * (pinned down by test/model/fake-anthropic.test.ts):
 * - "http-error": the status's `APIError` subclass (429 `RateLimitError`, 529 `OverloadedError`, 500
 *   `InternalServerError`, 400 `BadRequestError`), with `status`, `type` and `error.error.type`. The SDK
 *   retries 408/409/429/5xx by itself (honouring `retry-after-ms` / `retry-after`) unless `maxRetries: 0`.
 * - "sse-error": a plain `APIError` (not a subclass) with `status === undefined`, `type` and
 *   `error.error.type` set from the event (e.g. "overloaded_error"). Never retried: the 200 had arrived.
 * - "reset": an `AnthropicError` (exactly; not an `APIError`) whose message is undici's "terminated" and whose
 *   `cause` is the fetch `TypeError`. Not retried.
 * - "malformed": an `AnthropicError` whose `cause` is the `SyntaxError` from `JSON.parse`; the SDK also logs
 *   the bad chunk through its logger (`logLevel: "off"` silences it).
 * - "hang": nothing, until the caller aborts; then `APIUserAbortError`.
 * - a `tool_use` with `partialJson` (cut off by max_tokens): no error; see `blockEvents` below.
 * - a `server_tool_use` (its input in input_json_delta pieces) and a `web_search_tool_result` (whole in its
 *   content_block_start), as the API streams a server-side web search; `usage.server_tool_use` goes in
 *   message_delta. The SDK's accumulator builds both blocks (test/model/fake-anthropic.test.ts).
 * - a `thinking` block (its text in thinking_delta pieces, then one signature_delta) and a
 *   `redacted_thinking` block (whole in its content_block_start), as the API streams extended thinking.
 *
 * Like the API, it refuses (HTTP 400, consuming no step) a request with `thinking: {type: "enabled"}`
 * whose `max_tokens` is not above `budget_tokens`, or whose last assistant turn with a tool call does
 * not start with the thinking block it was sent, unchanged (its signature is checked against the
 * text this server signed): what a client that drops or edits thinking blocks would meet.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";

export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

export type ContentSpec =
  | { type: "text"; text: string }
  | {
      type: "tool_use";
      id?: string;
      name: string;
      input: unknown;
      /** when set, send exactly this partial JSON text and never close the JSON (a tool_use cut off by max_tokens) */
      partialJson?: string;
    }
  /** a call the API runs on its side (web search): streamed as the API does, its input in input_json_delta pieces */
  | { type: "server_tool_use"; id: string; name: string; input: unknown }
  /** the API's result of a server tool call: sent whole in content_block_start, as the API does */
  | { type: "web_search_tool_result"; tool_use_id: string; content: unknown }
  /** extended thinking: its text in thinking_delta pieces, then a signature_delta (default: one this server signs) */
  | { type: "thinking"; thinking: string; signature?: string }
  /** thinking the API sends encrypted: whole in content_block_start */
  | { type: "redacted_thinking"; data: string };

export interface UsageSpec {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** searches the API ran (reported in message_delta's usage, as the API does) */
  server_tool_use?: { web_search_requests: number };
}

export type Scripted =
  | {
      kind: "message";
      content: ContentSpec[];
      /** default: "max_tokens" if a tool_use has `partialJson`, else "tool_use" if any tool_use, else "end_turn" */
      stopReason?: StopReason;
      usage?: UsageSpec;
      model?: string;
      /** ms to wait between SSE events (default 0) */
      chunkDelayMs?: number;
      /** ms to wait before sending headers */
      delayMs?: number;
      /**
       * The answer waits for this before its headers (after `delayMs`): a test holds the request
       * until it has seen what must happen meanwhile, instead of guessing how long that takes.
       */
      heldUntil?: Promise<unknown>;
      /** extra response headers (e.g. the API's anthropic-ratelimit-* ones) */
      headers?: Record<string, string>;
    }
  | {
      kind: "http-error";
      status: number;
      errorType?: string;
      message?: string;
      headers?: Record<string, string>;
    }
  | {
      kind: "sse-error";
      /** content sent (as complete deltas) before the error event; [] = error before any output */
      before: ContentSpec[];
      errorType?: string;
      message?: string;
    }
  | {
      kind: "reset";
      /** content streamed before the socket is destroyed mid-stream (the last block is left open) */
      before: ContentSpec[];
    }
  | { kind: "malformed" }
  | {
      kind: "hang";
      /** content streamed before the stream stops sending forever (until the client aborts; the last block is left open) */
      before: ContentSpec[];
    }
  /** headers of an event stream, then nothing at all, until the client gives up */
  | { kind: "silence" }
  /** the connection is accepted and never answered: no headers */
  | { kind: "no-answer" }
  /** a 200 answer that is not an event stream (a proxy's HTML page, say) */
  | { kind: "not-a-stream"; contentType: string; body: string }
  /** pings (`every` ms apart, `count` of them) before the message: a slow model that is alive */
  | { kind: "pings"; every: number; count: number; after: ContentSpec[] };

export type ScriptStep = Scripted | ((req: RecordedRequest) => Scripted);

export interface RecordedRequest {
  readonly method: string;
  /** the request target as sent, e.g. "/v1/messages" (a query string, if any, is kept) */
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /**
   * The parsed JSON request body. The SDK always sends valid JSON; should a request body not parse, the request
   * is answered 400 (consuming no step), still recorded, and `body` is `null` despite its type: see `rawBody`.
   */
  readonly body: MessageCreateParams;
  /** the request body exactly as received */
  readonly rawBody: string;
}

export interface FakeAnthropic {
  /** e.g. "http://127.0.0.1:PORT" (use as baseURL) */
  readonly url: string;
  /** every POST /v1/messages request, in order, including those answered with errors */
  readonly requests: RecordedRequest[];
  /** steps not yet consumed */
  remaining(): number;
  /** resolves once no response is being written (each has ended, or found its client gone) */
  settled(): Promise<void>;
  /** append more steps */
  push(...steps: ScriptStep[]): void;
  /** closes the server and destroys open sockets (idempotent) */
  close(): Promise<void>;
}

const DEFAULT_MODEL = "claude-sonnet-4-5";

interface SseEvent {
  readonly name: string;
  readonly data: unknown;
}

const PING: SseEvent = { name: "ping", data: { type: "ping" } };

/** The default `error.type` of an HTTP error response, by status, as the API sends it. */
function defaultErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

/** Splits `text` into 2–3 non-empty pieces (fewer only when it is shorter), never inside a code point. */
function splitText(text: string): string[] {
  const chars = Array.from(text);
  const n = Math.min(3, chars.length);
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) {
    pieces.push(
      chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(""),
    );
  }
  return pieces;
}

function toolId(spec: ContentSpec & { type: "tool_use" }, requestNo: number, index: number): string {
  return spec.id ?? `toolu_${requestNo}_${index}`;
}

/**
 * The events of one content block at `index`: content_block_start, its deltas and (when `close`)
 * content_block_stop.
 *
 * A tool_use with `partialJson` sends exactly that text as its only input_json_delta and then, as the API does
 * when max_tokens cuts the block, content_block_stop. The SDK's MessageStream does not throw on it: it parses
 * the accumulated JSON leniently (its vendored partial-json parser) when the block stops, and keeps only what is
 * complete. An unfinished string or number value and its key are dropped, e.g. `{"path": "a.ts", "content": "hel`
 * gives `input` `{ path: "a.ts" }`, and `{"a": [1, 2` gives `{ a: [1] }`; text that cannot be parsed even
 * leniently would make the stream fail with an error instead.
 */
function blockEvents(spec: ContentSpec, index: number, requestNo: number, close: boolean): SseEvent[] {
  const events: SseEvent[] = [];
  if (spec.type === "thinking") {
    events.push({
      name: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
    });
    for (const thinking of splitText(spec.thinking)) {
      events.push({
        name: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } },
      });
    }
    events.push({
      name: "content_block_delta",
      data: {
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: spec.signature ?? signatureOf(spec.thinking) },
      },
    });
  } else if (spec.type === "redacted_thinking") {
    events.push({
      name: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: "redacted_thinking", data: spec.data },
      },
    });
  } else if (spec.type === "text") {
    events.push({
      name: "content_block_start",
      data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    });
    for (const text of splitText(spec.text)) {
      events.push({
        name: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "text_delta", text } },
      });
    }
  } else if (spec.type === "web_search_tool_result") {
    events.push({
      name: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: spec.type, tool_use_id: spec.tool_use_id, content: spec.content },
      },
    });
  } else if (spec.type === "server_tool_use") {
    events.push({
      name: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: spec.type, id: spec.id, name: spec.name, input: {} },
      },
    });
    const json = JSON.stringify(spec.input ?? {});
    const half = Math.ceil(json.length / 2);
    for (const partial_json of [json.slice(0, half), json.slice(half)]) {
      events.push({
        name: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
      });
    }
  } else {
    events.push({
      name: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: toolId(spec, requestNo, index), name: spec.name, input: {} },
      },
    });
    const json = spec.partialJson ?? JSON.stringify(spec.input ?? {});
    const half = Math.ceil(json.length / 2);
    const pieces = spec.partialJson !== undefined ? [json] : [json.slice(0, half), json.slice(half)];
    for (const partial_json of pieces) {
      events.push({
        name: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
      });
    }
  }
  if (close) events.push({ name: "content_block_stop", data: { type: "content_block_stop", index } });
  return events;
}

/** The signature this server gives a thinking text (what the API checks a block sent back against). */
export function signatureOf(thinking: string): string {
  let h = 0;
  for (const ch of thinking) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return `sig_${h.toString(36)}_${thinking.length}`;
}

type Json = Record<string, unknown>;

/**
 * Why the API would refuse a request with extended thinking on, or undefined: `max_tokens` not above
 * the budget; the last assistant turn holding a tool call not starting with a thinking block; a
 * thinking block whose signature does not match its text.
 */
export function thinkingRefusal(body: MessageCreateParams): string | undefined {
  const thinking = body.thinking as Json | undefined;
  if (thinking?.type !== "enabled") return undefined;
  const budget = Number(thinking.budget_tokens);
  if (!(body.max_tokens > budget))
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\` (${body.max_tokens} <= ${budget})`;
  const messages = body.messages as { role: string; content: unknown }[];
  for (const m of messages) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content as Json[])
      if (b.type === "thinking" && b.signature !== signatureOf(String(b.thinking)))
        return "Invalid `signature` in `thinking` block";
  }
  const last = [...messages].reverse().find((m) => m.role === "assistant");
  const blocks = Array.isArray(last?.content) ? (last.content as Json[]) : [];
  const first = blocks[0]?.type;
  if (blocks.some((b) => b.type === "tool_use") && first !== "thinking" && first !== "redacted_thinking")
    return `messages: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  return undefined;
}

function messageStart(requestNo: number, model: string, usage: UsageSpec | undefined): SseEvent {
  return {
    name: "message_start",
    data: {
      type: "message_start",
      message: {
        id: `msg_${requestNo}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage?.input_tokens ?? 10,
          output_tokens: 1,
          cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
        },
      },
    },
  };
}

/** message_start, a ping, then the blocks; all complete, or (when `leaveLastOpen`) the last without its stop. */
function openingEvents(
  content: ContentSpec[],
  requestNo: number,
  model: string,
  usage: UsageSpec | undefined,
  leaveLastOpen: boolean,
): SseEvent[] {
  const events = [messageStart(requestNo, model, usage), PING];
  content.forEach((spec, i) => {
    events.push(...blockEvents(spec, i, requestNo, !(leaveLastOpen && i === content.length - 1)));
  });
  return events;
}

function defaultStopReason(content: ContentSpec[]): StopReason {
  if (content.some((c) => c.type === "tool_use" && c.partialJson !== undefined)) return "max_tokens";
  if (content.some((c) => c.type === "tool_use")) return "tool_use";
  return "end_turn";
}

function messageEvents(step: Scripted & { kind: "message" }, requestNo: number): SseEvent[] {
  return [
    ...openingEvents(step.content, requestNo, step.model ?? DEFAULT_MODEL, step.usage, false),
    PING,
    {
      name: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: step.stopReason ?? defaultStopReason(step.content), stop_sequence: null },
        usage: {
          output_tokens: step.usage?.output_tokens ?? 5,
          ...(step.usage?.server_tool_use && { server_tool_use: step.usage.server_tool_use }),
        },
      },
    },
    { name: "message_stop", data: { type: "message_stop" } },
  ];
}

function formatEvent(event: SseEvent): string {
  return `event: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** One response in flight: writes that never throw, and a way to know the client has gone. */
class Reply {
  private gone = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly res: http.ServerResponse,
    readonly requestNo: number,
  ) {
    res.on("error", () => {});
    res.on("close", () => {
      this.gone = true;
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
    });
  }

  /** True while the response can still be written to. */
  get open(): boolean {
    return !this.gone && !this.res.destroyed && !this.res.writableEnded;
  }

  /** Waits `ms`; resolves false if the client went away meanwhile (resolves at once for ms <= 0). */
  sleep(ms: number): Promise<boolean> {
    if (ms <= 0 || !this.open) return Promise.resolve(this.open);
    return new Promise((resolve) => {
      const onClose = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.res.off("close", onClose);
        resolve(this.open);
      }, ms);
      this.timers.add(timer);
      this.res.once("close", onClose);
    });
  }

  /** Waits for `event`; resolves false if the client went away first. */
  waitFor(event: Promise<unknown>): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onClose = (): void => resolve(false);
      this.res.once("close", onClose);
      void event.then(
        () => {
          this.res.off("close", onClose);
          resolve(this.open);
        },
        () => {
          this.res.off("close", onClose);
          resolve(false);
        },
      );
    });
  }

  /** A complete, non-streamed JSON response. */
  json(status: number, body: string, headers: Record<string, string> = {}): void {
    if (!this.open) return;
    this.res.writeHead(status, {
      "content-type": "application/json",
      "request-id": `req_fake_${this.requestNo}`,
      ...headers,
    });
    this.res.end(body);
  }

  startStream(headers: Record<string, string> = {}): void {
    if (!this.open) return;
    this.res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "request-id": `req_fake_${this.requestNo}`,
      ...headers,
    });
    this.res.flushHeaders();
  }

  /** Writes `chunk` and waits until it is handed to the socket; false if the client is gone. */
  write(chunk: string): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onClose = (): void => resolve(false);
      this.res.once("close", onClose);
      this.res.write(chunk, (err) => {
        this.res.off("close", onClose);
        resolve(!err && this.open);
      });
    });
  }

  /** Sends the events in order, `delayMs` apart; false if the client went away first. */
  async send(events: SseEvent[], delayMs = 0): Promise<boolean> {
    for (const [i, event] of events.entries()) {
      if (i > 0 && !(await this.sleep(delayMs))) return false;
      if (!(await this.write(formatEvent(event)))) return false;
    }
    return true;
  }

  end(): void {
    if (this.open) this.res.end();
  }

  /** Drops the connection mid-response, without the terminating chunk. */
  destroySocket(): void {
    this.res.socket?.destroy();
  }
}

export async function startFakeAnthropic(script: ScriptStep[]): Promise<FakeAnthropic> {
  const steps: ScriptStep[] = [...script];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let closing: Promise<void> | undefined;

  async function play(step: Scripted, reply: Reply): Promise<void> {
    const n = reply.requestNo;
    switch (step.kind) {
      case "message": {
        if (!(await reply.sleep(step.delayMs ?? 0))) return;
        if (step.heldUntil && !(await reply.waitFor(step.heldUntil))) return;
        reply.startStream(step.headers);
        if (await reply.send(messageEvents(step, n), step.chunkDelayMs ?? 0)) reply.end();
        return;
      }
      case "http-error": {
        const type = step.errorType ?? defaultErrorType(step.status);
        const message = step.message ?? `fake server: scripted ${step.status} ${type}`;
        reply.json(step.status, errorBody(type, message), step.headers);
        return;
      }
      case "sse-error": {
        reply.startStream();
        const opening = openingEvents(step.before, n, DEFAULT_MODEL, undefined, false);
        const error: SseEvent = {
          name: "error",
          data: {
            type: "error",
            error: { type: step.errorType ?? "overloaded_error", message: step.message ?? "Overloaded" },
          },
        };
        if (await reply.send([...opening, error])) reply.end();
        return;
      }
      case "reset": {
        reply.startStream();
        if (await reply.send(openingEvents(step.before, n, DEFAULT_MODEL, undefined, true))) {
          reply.destroySocket();
        }
        return;
      }
      case "malformed": {
        reply.startStream();
        if (await reply.write("event: message_start\ndata: {not json\n\n")) reply.end();
        return;
      }
      case "silence": {
        reply.startStream();
        return;
      }
      case "no-answer":
        return;
      case "not-a-stream": {
        if (!reply.open) return;
        reply.res.writeHead(200, { "content-type": step.contentType });
        reply.res.end(step.body);
        return;
      }
      case "pings": {
        reply.startStream();
        for (let i = 0; i < step.count; i++) {
          if (!(await reply.sleep(step.every)) || !(await reply.write(formatEvent(PING)))) return;
        }
        if (await reply.send(messageEvents({ kind: "message", content: step.after }, n))) reply.end();
        return;
      }
      case "hang": {
        reply.startStream();
        // Then nothing: the socket stays open until the client aborts or close() destroys it.
        await reply.send(openingEvents(step.before, n, DEFAULT_MODEL, undefined, true));
        return;
      }
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): Promise<void> {
    const path = req.url ?? "/";
    const pathname = new URL(path, "http://fake.invalid").pathname;
    if (req.method !== "POST" || pathname !== "/v1/messages") {
      new Reply(res, 0).json(
        404,
        errorBody("not_found_error", `fake server: no route for ${req.method ?? "?"} ${path}`),
      );
      return;
    }

    let body: MessageCreateParams | null = null;
    let parseError: string | undefined;
    try {
      body = JSON.parse(rawBody) as MessageCreateParams;
    } catch (err) {
      parseError = err instanceof Error ? err.message : String(err);
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path,
      headers: { ...req.headers },
      body: body as MessageCreateParams,
      rawBody,
    };
    requests.push(recorded);
    const reply = new Reply(res, requests.length);
    const noRetry = { "x-should-retry": "false" };

    if (parseError !== undefined) {
      reply.json(
        400,
        errorBody("invalid_request_error", `fake server: request body is not JSON: ${parseError}`),
        noRetry,
      );
      return;
    }
    const refused = thinkingRefusal(recorded.body);
    if (refused !== undefined) {
      reply.json(400, errorBody("invalid_request_error", refused), noRetry);
      return;
    }
    const next = steps.shift();
    if (next === undefined) {
      // x-should-retry: false, so a client with retries left fails at once instead of backing off into
      // more exhausted answers.
      reply.json(500, errorBody("api_error", "fake server: script exhausted"), noRetry);
      return;
    }
    let step: Scripted;
    try {
      step = typeof next === "function" ? next(recorded) : next;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      reply.json(500, errorBody("api_error", `fake server: script step threw: ${message}`), noRetry);
      return;
    }
    await play(step, reply);
  }

  const server = http.createServer((req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (closed) {
        res.destroy();
        return;
      }
      const handling = handle(req, res, Buffer.concat(chunks).toString("utf8")).catch(() => {
        // A bug in the fake, or a write racing a disconnect: drop the connection rather than crash the run.
        res.destroy();
      });
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_err, socket) => {
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    remaining: () => steps.length,
    settled: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    push: (...more: ScriptStep[]) => {
      steps.push(...more);
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}
