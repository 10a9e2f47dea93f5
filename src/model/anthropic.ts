import Anthropic from "@anthropic-ai/sdk";
import { sleep, untilAborted } from "../shared/abort.js";
import { ConfigError } from "../shared/errors.js";
import { createMessageBuilder } from "./message-builder.js";
import {
  isApiErrorType,
  type Model,
  type ModelErrorCode,
  type ModelRequest,
  type TurnContext,
  type TurnOutcome,
} from "./model.js";
import { EFFORT_BETA } from "./model-features.js";
import { readSse } from "./read-sse.js";
import { REPLAY_NOTICE_HEADER } from "./record-replay.js";
import { modelTransport, type TransportOptions } from "./transport.js";

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Default for how long a response may stay silent (no headers, no event, no ping). */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
const DEFAULT_BASE_URL = "https://api.anthropic.com";
const MAX_MESSAGE = 600;

/** Sends one streamed Messages request; resolves with the raw response (or rejects as the SDK does). */
type Send = (params: ModelRequest, signal: AbortSignal) => Promise<Response>;

/**
 * The SDK's `messages.create` prints its warnings about a model (deprecated, a deprecated setting)
 * to the console on every request: a long run would print them once a turn. A model's first request
 * for each model id goes through it, so each warning is printed once; the later ones are the same
 * request sent by `client.post`, which makes no such check. Nothing of the process is patched.
 */
function sender(client: Anthropic): Send {
  const checked = new Set<string>();
  return (params, signal) => {
    const body = { ...params, stream: true as const };
    const options = { signal, maxRetries: 0, timeout: 2 ** 31 - 1, ...betaHeaders(params) };
    if (checked.has(params.model))
      return client.post("/v1/messages", { body, ...options, stream: true }).asResponse();
    checked.add(params.model);
    return client.messages.create(body, options).asResponse();
  };
}

/**
 * The `anthropic-beta` header a request's fields need, the betas in one comma-separated value (as
 * the API reads several): `effort-2025-11-24` for `output_config.effort`. None: no header.
 */
export function betaHeaders(params: ModelRequest): { headers?: Record<string, string> } {
  const betas = [...(params.output_config?.effort ? [EFFORT_BETA] : [])];
  return betas.length > 0 ? { headers: { "anthropic-beta": betas.join(",") } } : {};
}

export const MISSING_KEY_MESSAGE =
  "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or answer offline from a recording with --replay FILE (one made with --record FILE; agentmd's own demo is in a clone of its repository: npx agentmd run --replay demo/session.jsonl)";

export interface AnthropicModelOptions extends TransportOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Retries of a failed request (429, 5xx, a reset, a silence) before any output; default 2, none on a replay. */
  readonly maxRetries?: number;
  /** How long a response may stay silent before it is given up (and retried); default 120 s. */
  readonly idleTimeoutMs?: number;
  /** Milliseconds before retry `attempt` (1-based) when the server says nothing; exponential with jitter unless set. */
  readonly backoff?: (attempt: number) => number;
}

interface Policy {
  readonly maxRetries: number;
  readonly idleMs: number;
  readonly baseURL: string;
  readonly backoff: (attempt: number) => number;
}

/**
 * The Anthropic Messages API behind the `Model` seam: key and base URL from the options (agent.md),
 * then the environment given (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL);
 * requests live, recorded or replayed. Throws `ConfigError` when no credential is set and one is
 * needed (anything but a replay).
 */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const transport = modelTransport(options);
  // The credential comes from the options or the environment given (never from process.env behind
  // their back: the CLI hands the key over without putting it in its own environment).
  const apiKey = options.apiKey ?? (options.env.ANTHROPIC_API_KEY || undefined);
  const authToken = apiKey ? undefined : options.env.ANTHROPIC_AUTH_TOKEN || undefined;
  if (!apiKey && !authToken && !transport.keyless) throw new ConfigError(MISSING_KEY_MESSAGE);
  const baseURL = options.baseURL ?? (options.env.ANTHROPIC_BASE_URL || undefined);
  if (baseURL) checkBaseURL(baseURL, options.baseURL ? "the model's baseURL" : "ANTHROPIC_BASE_URL");
  const client = new Anthropic({
    ...(authToken ? { authToken } : { apiKey: apiKey ?? "replay" }),
    ...(baseURL && { baseURL }),
    ...(transport.fetch && { fetch: transport.fetch }),
    // Retries are this module's, so that every one is seen and said.
    maxRetries: 0,
    // Errors reach the run as events; the SDK's own console logging would only repeat them.
    logLevel: "off",
  });
  const policy: Policy = {
    maxRetries: options.replay ? 0 : (options.maxRetries ?? DEFAULT_MAX_RETRIES),
    idleMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    baseURL: baseURL ?? DEFAULT_BASE_URL,
    backoff: options.backoff ?? defaultBackoff,
  };
  const send = sender(client);
  return { turn: (request, cx) => streamTurn(send, request, cx, policy) };
}

/**
 * A base URL the client can use: http or https, and not ending in `/v1` (the client adds
 * `/v1/messages` itself, so `…/v1` would ask for `/v1/v1/messages`). Said at once as a
 * `ConfigError`, before any request: a malformed URL is no failure worth retrying.
 */
function checkBaseURL(baseURL: string, where: string): void {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(
      `${where} '${baseURL}' is not an http:// or https:// URL (e.g. https://api.anthropic.com)`,
    );
  if (/\/v1\/?$/.test(url.pathname))
    throw new ConfigError(
      `${where} '${baseURL}' ends in /v1, but the client adds /v1/messages itself: use '${baseURL.replace(/\/v1\/?$/, "")}'`,
    );
}

/** One try's end: a message, the run aborted, an error, or a failure worth trying again. */
type Attempt =
  | TurnOutcome
  | {
      readonly kind: "retry";
      readonly reason: string;
      readonly code: ModelErrorCode;
      readonly message: string;
      readonly delayMs?: number;
    };

/**
 * One model request, streamed: text deltas are reported as they arrive. A failure before any output
 * (HTTP 408/409/429/5xx, a reset, a response silent for the idle timeout, an overloaded or api_error
 * inside the stream) is retried with backoff, honouring retry-after, and each retry is reported as
 * it is decided; after output it ends the turn with an error, since the output cannot be taken back.
 * Contract: never rejects.
 */
async function streamTurn(
  send: Send,
  params: ModelRequest,
  cx: TurnContext,
  policy: Policy,
): Promise<TurnOutcome> {
  for (let attempt = 0; ; attempt++) {
    const r = await attemptTurn(send, params, cx, policy);
    if (r.kind !== "retry") return r;
    if (attempt >= policy.maxRetries) return { kind: "error", code: r.code, message: r.message };
    const delayMs = Math.min(MAX_DELAY_MS * 4, r.delayMs ?? policy.backoff(attempt + 1));
    cx.onRetry(attempt + 1, r.reason, delayMs);
    await sleep(delayMs, cx.signal);
    if (cx.signal.aborted) return { kind: "aborted" };
  }
}

async function attemptTurn(
  send: Send,
  params: ModelRequest,
  cx: TurnContext,
  policy: Policy,
): Promise<Attempt> {
  const controller = new AbortController();
  const aborted = untilAborted(cx.signal);
  aborted.promise.then(() => controller.abort());
  let silent = false;
  let timer: NodeJS.Timeout | undefined;
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      silent = true;
      controller.abort();
    }, policy.idleMs);
  };
  const builder = createMessageBuilder();
  let output = false;
  try {
    alive();
    const response = await send(params, controller.signal);
    alive();
    const notice = response.headers.get(REPLAY_NOTICE_HEADER);
    if (notice) cx.onNotice?.(notice);
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream") || !response.body)
      return await notAStream(response, type, policy);
    for await (const ev of readSse(response.body, alive)) {
      if (ev.event === "ping") continue;
      if (ev.event === "error") return streamError(ev.data, output, policy);
      const data = parseEvent(ev.data);
      if (!data) return { kind: "error", code: "malformed_stream", message: malformed(output) };
      if (data.type === "content_block_start") output = true;
      const text = builder.apply(data);
      if (text) {
        output = true;
        cx.onText(text);
      }
    }
    const built = builder.finish();
    if (built) return { kind: "message", message: built.message, invalidInputs: built.invalidInputs };
    return failure(output, "connection_error", "the response stream ended before the message did", policy);
  } catch (e) {
    if (cx.signal.aborted || (e instanceof Anthropic.APIUserAbortError && !silent))
      return { kind: "aborted" };
    if (silent)
      return failure(
        output,
        "timeout",
        `no data for ${seconds(policy.idleMs)} s from ${policy.baseURL}`,
        policy,
      );
    return classify(e, output, policy);
  } finally {
    clearTimeout(timer);
    aborted.dispose();
  }
}

/** A failure of one try: retried when nothing was output yet, else the end of the turn. */
function failure(
  output: boolean,
  code: ModelErrorCode,
  what: string,
  policy: Policy,
  delayMs?: number,
): Attempt {
  if (output)
    return {
      kind: "error",
      code,
      message: `${what}, after the response had started; it cannot be retried without repeating output`,
    };
  return {
    kind: "retry",
    reason: what.startsWith("no data") ? what : `${code}: ${what}`,
    code,
    message: `${what} (${policy.maxRetries} retries made)`,
    ...(delayMs !== undefined && { delayMs }),
  };
}

function classify(e: unknown, output: boolean, policy: Policy): Attempt {
  if (e instanceof Anthropic.APIError && e.status !== undefined) {
    const code = errorCode(e);
    if (code === "replay_departure") return { kind: "error", code, message: e.apiMessage ?? e.message };
    const what = `the model API at ${policy.baseURL} answered HTTP ${e.status} (${code}): ${cut(e.apiMessage ?? e.message)}`;
    const retryable = [408, 409, 429].includes(e.status) || e.status >= 500;
    const headers = e.headers instanceof Headers ? e.headers : undefined;
    if (!retryable || headers?.get("x-should-retry") === "false")
      return { kind: "error", code, message: what };
    if (output) return { kind: "error", code, message: what };
    return {
      kind: "retry",
      reason: `HTTP ${e.status}`,
      code,
      message: what,
      ...(headers && retryAfter(headers)),
    };
  }
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
  const text = e instanceof Error ? e.message : String(e);
  return failure(
    output,
    "connection_error",
    `the connection to the model API at ${policy.baseURL} failed: ${cut(text)}${cause}`,
    policy,
  );
}

/** An `error` event inside the stream: overloaded and api_error are retried like an HTTP 529 or 500. */
function streamError(data: string, output: boolean, policy: Policy): Attempt {
  const body = parseEvent(data) as { error?: { type?: unknown; message?: unknown } } | undefined;
  const given = body?.error?.type;
  const type = typeof given === "string" ? given : "api_error";
  const what = `the model API at ${policy.baseURL} sent ${type} in the response stream: ${cut(String(body?.error?.message ?? data))}`;
  if (type === "overloaded_error" || type === "api_error") {
    const r = failure(output, type, what, policy);
    return r.kind === "retry" ? { ...r, reason: `${type} in the response stream` } : r;
  }
  // A type the API has not named before is told as it came, and coded as the API's generic error.
  return { kind: "error", code: isApiErrorType(given) ? given : "api_error", message: what };
}

async function notAStream(response: Response, type: string, policy: Policy): Promise<Attempt> {
  let body = "";
  try {
    body = (await response.text()).slice(0, 4096);
  } catch {
    // the body is not needed to say what went wrong
  }
  const size = response.headers.get("content-length");
  if (type.includes("json")) {
    const parsed = parseEvent(body) as { error?: { type?: unknown; message?: unknown } } | undefined;
    if (parsed?.error?.type === "replay_departure")
      return { kind: "error", code: "replay_departure", message: String(parsed.error.message) };
  }
  return {
    kind: "error",
    code: "not_a_stream",
    message: `the model API at ${policy.baseURL} answered ${response.status} with ${type || "no content type"}${size ? ` (${size} bytes)` : ""}, not an event stream: ${cut(body.replace(/\s+/g, " ").trim()) || "(empty)"}`,
  };
}

const malformed = (output: boolean) =>
  `the model API sent a response stream that could not be read${output ? " after the response had started" : ""}`;

function parseEvent(data: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(data);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** retry-after-ms or retry-after (seconds), when the server says when to come back. */
function retryAfter(h: Headers): { delayMs?: number } {
  const ms = Number(h.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return { delayMs: ms };
  const s = Number(h.get("retry-after"));
  return Number.isFinite(s) && s > 0 ? { delayMs: s * 1000 } : {};
}

/** Text from a server, at a length a line can show: `… (N characters in all)`. */
function cut(text: string): string {
  return text.length > MAX_MESSAGE
    ? `${text.slice(0, MAX_MESSAGE)}… (${text.length} characters in all)`
    : text;
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

function defaultBackoff(attempt: number): number {
  return Math.min(
    MAX_DELAY_MS,
    Math.round(BASE_DELAY_MS * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5)),
  );
}

/** `overloaded_error`, `rate_limit_error`, `http_500`, …: what an API error was, for events. */
export function errorCode(e: unknown): ModelErrorCode {
  if (e instanceof Anthropic.APIError) {
    const body = e.error as { error?: { type?: unknown }; type?: unknown } | undefined;
    const t = e.type ?? body?.error?.type ?? body?.type;
    if (t === "replay_departure") return t;
    if (isApiErrorType(t)) return t;
    return e.status ? `http_${e.status}` : "api_error";
  }
  return "connection_error";
}
