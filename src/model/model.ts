import type { Message, MessageCreateParamsStreaming } from "./messages.js";

/**
 * The seam between the loop and a model provider. The loop speaks Messages-API content blocks (its
 * data); how a request reaches a model, streams back and is retried lives behind this interface.
 */
export type ModelRequest = Omit<MessageCreateParamsStreaming, "stream">;

export type TurnOutcome =
  | {
      readonly kind: "message";
      readonly message: Message;
      /** By tool_use id: calls whose input was not one complete JSON object (never executed). */
      readonly invalidInputs?: ReadonlyMap<string, string>;
    }
  | { readonly kind: "aborted" }
  | { readonly kind: "error"; readonly code: ModelErrorCode; readonly message: string };

/** The error types the Messages API names in its error bodies and streams. */
export const API_ERROR_TYPES = [
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "timeout_error",
  "api_error",
  "overloaded_error",
  "conflict_error",
] as const;

export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

/**
 * Why a model request failed: the API's error type, the HTTP status of an error it gave no known
 * type for (`http_404`), or what the transport saw on the way.
 */
export type ModelErrorCode =
  | ApiErrorType
  | `http_${number}`
  | "connection_error"
  | "timeout"
  | "malformed_stream"
  | "not_a_stream"
  | "replay_departure";

export function isApiErrorType(t: unknown): t is ApiErrorType {
  return typeof t === "string" && (API_ERROR_TYPES as readonly string[]).includes(t);
}

export interface TurnContext {
  readonly signal: AbortSignal;
  /** Each text delta, as it arrives. */
  onText(text: string): void;
  /** Each retry, when it is decided (before its delay). */
  onRetry(attempt: number, reason: string, delayMs: number): void;
  /**
   * Something the run should be told that is not a failure (a replay whose tool results differ from
   * the recording): a warning of the run this turn belongs to. Absent: nobody listens.
   */
  onNotice?(message: string): void;
}

/**
 * A model provider: the Anthropic API (`createAnthropicModel`), or any object of this shape a
 * library user passes as `RunnerOptions.model` (a scripted model in a test, another transport).
 */
export interface Model {
  /** One request, streamed. Contract: never rejects; every failure is an outcome. */
  turn(request: ModelRequest, cx: TurnContext): Promise<TurnOutcome>;
}

/** Whether a value is a `Model` (it has a `turn` function), as opposed to options for one. */
export function isModel(value: unknown): value is Model {
  return typeof value === "object" && value !== null && typeof (value as Partial<Model>).turn === "function";
}
