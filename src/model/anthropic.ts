import { APIUserAbortError } from "@anthropic-ai/sdk/core/error";
import { sleep, untilAborted } from "../shared/abort.js";
import { ConfigError } from "../shared/errors.js";
import { createMessageBuilder } from "./message-builder.js";
import type { Model, ModelRequest, TurnContext, TurnOutcome } from "./model.js";
import { EFFORT_BETA } from "./model-features.js";
import type { CredentialHelpers } from "./providers/credential-helpers.js";
import { chooseProvider, type ProviderChoice } from "./providers/provider-choice.js";
import { type ProviderSession, providerSession } from "./providers/provider-session.js";
import { readSse } from "./read-sse.js";
import { REPLAY_NOTICE_HEADER, recordingFetch } from "./record-replay.js";
import { modelTransport, type TransportOptions } from "./transport.js";
import {
  type Attempt,
  classify,
  type FailurePolicy,
  failure,
  malformed,
  notAStream,
  parseEvent,
  streamError,
} from "./turn-failures.js";

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Default for how long a response may stay silent (no headers, no event, no ping). */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
const DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Sends one streamed Messages request; resolves with the raw response (or rejects as the SDK does). */
type Send = (params: ModelRequest, signal: AbortSignal) => Promise<Response>;

/**
 * The SDK's `messages.create` prints its warnings about a model (deprecated, a deprecated setting)
 * to the console on every request: a long run would print them once a turn. A model's first request
 * for each model id goes through it, so each warning is printed once; the later ones are the same
 * request sent by `client.post`, which makes no such check. Nothing of the process is patched.
 */
function sender(session: ProviderSession): Send {
  const checked = new Set<string>();
  return async (params, signal) => {
    const client = await session.client();
    const body = { ...params, model: session.modelId(params.model), stream: true as const };
    const options = { signal, maxRetries: 0, timeout: 2 ** 31 - 1, ...betaHeaders(params) };
    if (checked.has(params.model))
      return client.post("/v1/messages", { body, ...options, stream: true }).asResponse();
    checked.add(params.model);
    return client.messages.create(body, options).asResponse();
  };
}

/** Every exchange of `send` kept in `file`, as a recording of the Messages API is kept. */
function recordedSend(file: string, send: Send): Send {
  const keep = recordingFetch(file, (_url, init) =>
    send(JSON.parse(String(init?.body)) as ModelRequest, init?.signal ?? new AbortController().signal),
  );
  return (params, signal) =>
    keep("provider:/v1/messages", { body: JSON.stringify({ ...params, stream: true }), signal });
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
  /**
   * Where requests go: the Anthropic API, Amazon Bedrock, Google Vertex AI or Microsoft Foundry.
   * Chosen from `env` as Claude Code chooses (`CLAUDE_CODE_USE_BEDROCK=1`, …) unless given.
   */
  readonly provider?: ProviderChoice;
  /** The settings' credential commands (`apiKeyHelper`, `awsAuthRefresh`, `awsCredentialExport`). */
  readonly helpers?: CredentialHelpers;
  /** Where credential commands run; default the process's folder. */
  readonly cwd?: string;
}

interface Policy extends FailurePolicy {
  readonly maxRetries: number;
  readonly idleMs: number;
  readonly baseURL: string;
  readonly session: ProviderSession;
  /** The id this turn is sent, for a refusal's hint. */
  readonly sent: string;
  readonly backoff: (attempt: number) => number;
}

/**
 * The Anthropic Messages API behind the `Model` seam: key and base URL from the options (agent.md),
 * then the environment given (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL);
 * requests live, recorded or replayed. Throws `ConfigError` when no credential is set and one is
 * needed (anything but a replay).
 */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  // A replay answers from its recording, whatever provider recorded it.
  const choice = options.replay
    ? { kind: "anthropic" as const }
    : (options.provider ?? chooseProvider(options.env));
  // A cloud's wire format is its SDK's: what is recorded is the exchange above it, as the API's.
  const recordAbove = choice.kind === "anthropic" ? undefined : options.record;
  const transport = modelTransport(recordAbove ? { ...options, record: undefined } : options);
  const helpers = options.helpers ?? {};
  const basics = choice.kind === "anthropic" ? anthropicBasics(options, helpers, transport.keyless) : {};
  const session = providerSession(choice, {
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
    helpers,
    basics: { ...basics, ...(transport.fetch && { fetch: transport.fetch }) },
    anthropicURL: basics.baseURL ?? DEFAULT_BASE_URL,
  });
  const policy = {
    maxRetries: options.replay ? 0 : (options.maxRetries ?? DEFAULT_MAX_RETRIES),
    idleMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    baseURL: basics.baseURL ?? DEFAULT_BASE_URL,
    backoff: options.backoff ?? defaultBackoff,
    session,
  };
  const send = recordAbove ? recordedSend(recordAbove, sender(session)) : sender(session);
  return {
    turn: (request, cx) => streamTurn(send, request, cx, { ...policy, sent: session.modelId(request.model) }),
  };
}

/**
 * The Anthropic API's credential and base URL: from the options (agent.md), then the environment
 * given (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL), else the settings'
 * apiKeyHelper. Never from process.env behind their back: the CLI hands the key over without
 * putting it in its own environment. Throws `ConfigError` when none is set and one is needed.
 */
function anthropicBasics(options: AnthropicModelOptions, helpers: CredentialHelpers, keyless: boolean) {
  const apiKey = options.apiKey ?? (options.env.ANTHROPIC_API_KEY || undefined);
  const authToken = apiKey ? undefined : options.env.ANTHROPIC_AUTH_TOKEN || undefined;
  if (!apiKey && !authToken && !helpers.apiKeyHelper && !keyless) throw new ConfigError(MISSING_KEY_MESSAGE);
  const baseURL = options.baseURL ?? (options.env.ANTHROPIC_BASE_URL || undefined);
  if (baseURL) checkBaseURL(baseURL, options.baseURL ? "the model's baseURL" : "ANTHROPIC_BASE_URL");
  return { ...(apiKey && { apiKey }), ...(authToken && { authToken }), ...(baseURL && { baseURL }) };
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

/**
 * One model request, streamed: text deltas are reported as they arrive. A failure before any output
 * (HTTP 408/409/429/5xx, a reset, a response silent for the idle timeout, an overloaded or api_error
 * inside the stream) is retried with backoff, honouring retry-after, and each retry is reported as
 * it is decided; after output it ends the turn with an error, since the output cannot be taken back.
 * Contract: never rejects.
 */
async function streamTurn(
  send: Send,
  request: ModelRequest,
  cx: TurnContext,
  policy: Policy,
): Promise<TurnOutcome> {
  const { params, notice } = policy.session.adapt(request);
  if (notice) cx.onNotice?.(notice);
  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    const r = await attemptTurn(send, params, cx, policy);
    if (r.kind === "error" && !renewed && CREDENTIAL_REFUSALS.has(r.code)) {
      renewed = true;
      const again = await renewCredentials(policy);
      if (again === true) continue;
      if (again !== false) return { kind: "error", code: r.code, message: again };
    }
    if (r.kind !== "retry") return r;
    if (attempt >= policy.maxRetries) return { kind: "error", code: r.code, message: r.message };
    const delayMs = Math.min(MAX_DELAY_MS * 4, r.delayMs ?? policy.backoff(attempt + 1));
    cx.onRetry(attempt + 1, r.reason, delayMs);
    await sleep(delayMs, cx.signal);
    if (cx.signal.aborted) return { kind: "aborted" };
  }
}

/** Codes of a refused or missing credential, which a credential command may renew once a turn. */
const CREDENTIAL_REFUSALS: ReadonlySet<string> = new Set([
  "authentication_error",
  "permission_error",
  "http_401",
  "http_403",
]);

/** True: renewed, try again; false: nothing to renew with; a string: the renewal itself failed. */
async function renewCredentials(policy: Policy): Promise<boolean | string> {
  try {
    return await policy.session.renew();
  } catch (e) {
    return `${policy.session.where}: ${e instanceof Error ? e.message : String(e)}`;
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
    if (cx.signal.aborted || (e instanceof APIUserAbortError && !silent)) return { kind: "aborted" };
    if (silent)
      return failure(
        output,
        "timeout",
        `no data for ${seconds(policy.idleMs)} s from ${policy.session.choice.kind === "anthropic" ? policy.baseURL : policy.session.where}`,
        policy,
      );
    return classify(e, output, policy);
  } finally {
    clearTimeout(timer);
    aborted.dispose();
  }
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

function defaultBackoff(attempt: number): number {
  return Math.min(
    MAX_DELAY_MS,
    Math.round(BASE_DELAY_MS * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5)),
  );
}

export { errorCode } from "./turn-failures.js";
