import { APIError } from "@anthropic-ai/sdk/core/error";
import { isApiErrorType, type ModelErrorCode, type TurnOutcome } from "./model.js";
import { credentialFailure, isRetriedStreamError, refusalHint } from "./providers/provider-errors.js";
import type { ProviderSession } from "./providers/provider-session.js";

/**
 * How one try of a model request failed, and whether trying again may mend it: HTTP statuses,
 * errors inside the stream, answers that are no stream, connection faults, and a provider's
 * credentials. Each is said naming who answered (`policy.session.where`). Pure but for reading a
 * response body.
 */

const MAX_MESSAGE = 600;

/** What the failure readers need of a turn's policy. */
export interface FailurePolicy {
  readonly maxRetries: number;
  readonly session: ProviderSession;
  /** The id this turn was sent, for a refusal's hint. */
  readonly sent: string;
}

/** One try's end: a message, the run aborted, an error, or a failure worth trying again. */
export type Attempt =
  | TurnOutcome
  | {
      readonly kind: "retry";
      readonly reason: string;
      readonly code: ModelErrorCode;
      readonly message: string;
      readonly delayMs?: number;
    };

/** A failure of one try: retried when nothing was output yet, else the end of the turn. */
export function failure(
  output: boolean,
  code: ModelErrorCode,
  what: string,
  policy: FailurePolicy,
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

/** What an API error answer carries, whichever copy of the SDK's classes made it. */
interface ApiErrorLike {
  readonly status: number;
  readonly message: string;
  readonly apiMessage?: string | null;
  readonly headers?: unknown;
  readonly type?: unknown;
  readonly error?: unknown;
}

/**
 * An HTTP error answer: the SDK's `APIError`, or its twin from a provider's SDK, which is loaded
 * beside the CLI's bundle with its own copy of the SDK (so `instanceof` alone would miss it).
 */
function apiErrorOf(e: unknown): ApiErrorLike | undefined {
  if (e instanceof APIError) return e.status !== undefined ? (e as ApiErrorLike) : undefined;
  if (!(e instanceof Error) || !("status" in e) || !("headers" in e)) return undefined;
  return typeof e.status === "number" ? (e as unknown as ApiErrorLike) : undefined;
}

export function classify(caught: unknown, output: boolean, policy: FailurePolicy): Attempt {
  const e = apiErrorOf(caught);
  if (e) {
    const code = errorCode(e);
    if (code === "replay_departure") return { kind: "error", code, message: e.apiMessage ?? e.message };
    const said = e.apiMessage ?? e.message;
    const what = `${policy.session.where} answered HTTP ${e.status} (${code}): ${cut(said)}${refusalHint(policy.session.choice, e.status, said, policy.sent)}`;
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
  const unmendable = credentialFailure(policy.session.choice, caught);
  if (unmendable !== undefined) return { kind: "error", code: "authentication_error", message: unmendable };
  const cause = caught instanceof Error && caught.cause instanceof Error ? `: ${caught.cause.message}` : "";
  const text = caught instanceof Error ? caught.message : String(caught);
  return failure(
    output,
    "connection_error",
    `the connection to ${policy.session.where} failed: ${cut(text)}${cause}`,
    policy,
  );
}

/** An `error` event inside the stream: overloaded and api_error are retried like an HTTP 529 or 500. */
export function streamError(data: string, output: boolean, policy: FailurePolicy): Attempt {
  const body = parseEvent(data) as { error?: { type?: unknown; message?: unknown } } | undefined;
  const given = body?.error?.type;
  const type = typeof given === "string" ? given : "api_error";
  const what = `${policy.session.where} sent ${type} in the response stream: ${cut(String(body?.error?.message ?? data))}`;
  if (type === "overloaded_error" || type === "api_error" || isRetriedStreamError(type)) {
    const r = failure(output, isApiErrorType(type) ? type : "overloaded_error", what, policy);
    return r.kind === "retry" ? { ...r, reason: `${type} in the response stream` } : r;
  }
  // A type the API has not named before is told as it came, and coded as the API's generic error.
  return { kind: "error", code: isApiErrorType(given) ? given : "api_error", message: what };
}

export async function notAStream(response: Response, type: string, policy: FailurePolicy): Promise<Attempt> {
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
    message: `${policy.session.where} answered ${response.status} with ${type || "no content type"}${size ? ` (${size} bytes)` : ""}, not an event stream: ${cut(body.replace(/\s+/g, " ").trim()) || "(empty)"}`,
  };
}

export const malformed = (output: boolean) =>
  `the model API sent a response stream that could not be read${output ? " after the response had started" : ""}`;

export function parseEvent(data: string): Record<string, unknown> | undefined {
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
export function cut(text: string): string {
  return text.length > MAX_MESSAGE
    ? `${text.slice(0, MAX_MESSAGE)}… (${text.length} characters in all)`
    : text;
}

/** `overloaded_error`, `rate_limit_error`, `http_500`, …: what an API error was, for events. */
export function errorCode(caught: unknown): ModelErrorCode {
  const e = apiErrorOf(caught) ?? (caught instanceof APIError ? (caught as ApiErrorLike) : undefined);
  if (e) {
    const body = e.error as { error?: { type?: unknown }; type?: unknown } | undefined;
    const t = e.type ?? body?.error?.type ?? body?.type;
    if (t === "replay_departure") return t;
    if (isApiErrorType(t)) return t;
    return e.status ? `http_${e.status}` : "api_error";
  }
  return "connection_error";
}
