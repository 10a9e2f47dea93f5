import Anthropic from "@anthropic-ai/sdk";
import { ConfigError } from "../shared/errors.js";
import type { Model, ModelRequest, TurnContext, TurnOutcome } from "./model.js";
import { modelTransport, observeRetries, type TransportOptions } from "./transport.js";

/** Retries of an `overloaded_error` that arrives inside a 200 stream before any output. */
export const STREAM_RETRIES = 3;
const BASE_DELAY_MS = 500;
const DEFAULT_MAX_RETRIES = 2;

export const MISSING_KEY_MESSAGE =
  "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or run the recorded demo offline with 'agentmd run --replay demo/session.jsonl'";

export interface AnthropicModelOptions extends TransportOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Retries of 408/409/429/5xx by the SDK (honouring retry-after); default 2, none on a replay. */
  readonly maxRetries?: number;
  /** Milliseconds before in-stream retry `attempt` (1-based); exponential with jitter unless set. */
  readonly backoff?: (attempt: number) => number;
  /** Where a replay's notices go (tool results that differ from the recording). */
  readonly onNotice?: (message: string) => void;
}

/**
 * The Anthropic Messages API behind the `Model` seam: key and base URL from the options (agent.md),
 * then ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL; requests live, recorded or replayed.
 * Throws `ConfigError` when no key is set and one is needed (anything but a replay).
 */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const transport = modelTransport(options, (m) => options.onNotice?.(m));
  // The credential comes from the options or the environment given (never from process.env behind
  // their back: the CLI hands the key over without putting it in its own environment).
  const apiKey = options.apiKey ?? (options.env.ANTHROPIC_API_KEY || undefined);
  const authToken = apiKey ? undefined : options.env.ANTHROPIC_AUTH_TOKEN || undefined;
  if (!apiKey && !authToken && !transport.keyless) throw new ConfigError(MISSING_KEY_MESSAGE);
  const credential = authToken ? { authToken } : { apiKey: apiKey ?? "replay" };
  const baseURL = options.baseURL ?? options.env.ANTHROPIC_BASE_URL;
  const maxRetries = options.replay ? 0 : (options.maxRetries ?? DEFAULT_MAX_RETRIES);
  // One client per retry listener (that is, per run): the SDK's retries are reported to that run.
  const clients = new WeakMap<TurnContext["onRetry"], Anthropic>();
  const clientFor = (onRetry: TurnContext["onRetry"]) => {
    let c = clients.get(onRetry);
    if (!c) {
      c = new Anthropic({
        ...credential,
        ...(baseURL && { baseURL }),
        fetch: observeRetries(transport.fetch, maxRetries, onRetry),
        maxRetries,
        // Errors reach the run as events; the SDK's own console logging would only repeat them.
        logLevel: "off",
      });
      clients.set(onRetry, c);
    }
    return c;
  };
  const backoff = options.backoff ?? defaultBackoff;
  return { turn: (request, cx) => streamTurn(clientFor(cx.onRetry), request, cx, backoff) };
}

/**
 * One model request, streamed: text deltas are reported as they arrive. HTTP 408/409/429/5xx are
 * retried by the SDK (honouring retry-after); an overloaded error inside the stream before any
 * output is retried here, with backoff; after output it ends the turn with an error, since the
 * output cannot be taken back. Contract: never rejects.
 */
async function streamTurn(
  client: Anthropic,
  params: ModelRequest,
  cx: TurnContext,
  backoff: (attempt: number) => number,
): Promise<TurnOutcome> {
  for (let attempt = 0; ; attempt++) {
    let emitted = false;
    try {
      const stream = client.messages.stream(params, { signal: cx.signal });
      for await (const ev of stream) {
        if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") {
          emitted = true;
          cx.onText(ev.delta.text);
        } else if (ev.type === "content_block_start") {
          emitted = true;
        }
      }
      return { kind: "message", message: await stream.finalMessage() };
    } catch (e) {
      if (cx.signal.aborted || e instanceof Anthropic.APIUserAbortError) return { kind: "aborted" };
      const code = errorCode(e);
      // HTTP errors were the SDK's to retry; these arrived inside a stream that had begun.
      const inStream =
        !(e instanceof Anthropic.APIConnectionError) &&
        (!(e instanceof Anthropic.APIError) || e.status === undefined);
      const retryable = code === "overloaded_error" || code === "connection_error";
      if (inStream && retryable && !emitted && attempt < STREAM_RETRIES) {
        const delayMs = backoff(attempt + 1);
        cx.onRetry(attempt + 1, `${code} in the response stream`, delayMs);
        if (!(await sleep(delayMs, cx.signal))) return { kind: "aborted" };
        continue;
      }
      return { kind: "error", code, message: describeError(e, emitted) };
    }
  }
}

function defaultBackoff(attempt: number): number {
  return Math.round(BASE_DELAY_MS * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `overloaded_error`, `rate_limit_error`, `connection_error`, …: what the error was, for events. */
export function errorCode(e: unknown): string {
  if (e instanceof Anthropic.APIConnectionTimeoutError) return "timeout";
  if (e instanceof Anthropic.APIConnectionError) return "connection_error";
  if (e instanceof Anthropic.APIError) {
    const body = e.error as { error?: { type?: unknown }; type?: unknown } | undefined;
    const t = e.type ?? body?.error?.type ?? body?.type;
    if (typeof t === "string" && t !== "error") return t;
    return e.status ? `http_${e.status}` : "api_error";
  }
  // The SDK throws a bare AnthropicError for a stream that broke off ("terminated") or did not parse.
  if (e instanceof Error && e.cause instanceof SyntaxError) return "malformed_stream";
  if (e instanceof Anthropic.AnthropicError) return "connection_error";
  return "stream_error";
}

function describeError(e: unknown, emitted: boolean): string {
  const code = errorCode(e);
  const api =
    e instanceof Anthropic.APIError
      ? (e.apiMessage ?? e.message)
      : e instanceof Error
        ? e.message
        : String(e);
  const after = emitted
    ? " after the response had started; it cannot be retried without repeating output"
    : "";
  if (code === "connection_error") return `the connection to the model API failed${after}: ${api}`;
  if (code === "malformed_stream")
    return `the model API sent a response stream that could not be read${after}`;
  if (code === "replay_departure") return api;
  return `the model API answered with ${code}${after}: ${api}`;
}
