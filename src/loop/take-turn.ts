import type { ContentBlock, ContentBlockParam, MessageParam } from "../model/messages.js";
import type { TurnContext, TurnOutcome } from "../model/model.js";
import { addUsage, costOf, priceOf, ZERO_USAGE } from "../model/models.js";
import { normaliseInput } from "../tools/normalise-input.js";
import { contextTokens } from "./auto-compact.js";
import { charge } from "./budget.js";
import type { ToolUse } from "./execute-call.js";
import {
  baseOf,
  compact,
  currentModel,
  type Ending,
  type LoopConfig,
  type LoopState,
  type Response,
} from "./loop-state.js";
import { modelRequest } from "./model-request.js";
import { serverCalls } from "./server-tools.js";

/** What the API says of a request over the model's context window. */
const TOO_LONG = /prompt is too long|context window|too many tokens/i;

export type Turn =
  | ({ readonly kind: "response" } & Response)
  | { readonly kind: "ended"; readonly ending: Ending };

/**
 * The take-a-turn step: one request, streamed, and its response added to the conversation. A
 * request the model finds too long is compacted and sent again, once, within the same turn.
 */
export async function takeTurn(cfg: LoopConfig, state: LoopState): Promise<Turn> {
  const { call } = cfg;
  state.turns++;
  call.emit({ ...baseOf(cfg), type: "turn_start", turn: state.turns });
  const cx = turnContext(cfg);
  let outcome = await send(cfg, state, cx);
  if (outcome.kind === "error" && TOO_LONG.test(outcome.message) && !state.compactedForLimit) {
    state.compactedForLimit = true;
    if (await compact(cfg, state)) outcome = await send(cfg, state, cx);
  }
  // A compaction cut short by the abort leaves the first request's error: the run was aborted.
  if (outcome.kind === "aborted" || (outcome.kind === "error" && call.signal.aborted))
    return { kind: "ended", ending: { outcome: "aborted" } };
  if (outcome.kind === "error") {
    call.emit({ ...baseOf(cfg), type: "error", code: outcome.code, message: outcome.message });
    return { kind: "ended", ending: { outcome: "error", message: outcome.message } };
  }
  return { kind: "response", ...received(cfg, state, outcome) };
}

/**
 * One request, and when its model is overloaded after its retries, the same request to each
 * fallback model in turn; the one that answers serves the rest of the run (said as a warning).
 */
async function send(cfg: LoopConfig, state: LoopState, cx: TurnContext): Promise<TurnOutcome> {
  let outcome = await cfg.model.turn(modelRequest(cfg, state), cx);
  const fallbacks = cfg.fallbackModels ?? [];
  for (const next of fallbacks.slice(fallbacks.indexOf(currentModel(cfg, state)) + 1)) {
    if (outcome.kind !== "error" || outcome.code !== "overloaded_error" || cfg.call.signal.aborted) break;
    const message = `${currentModel(cfg, state)} is overloaded (${outcome.message}); this request and the rest of the run go to the fallback model ${next}`;
    cfg.call.emit({ ...baseOf(cfg), type: "warning", message });
    state.modelId = next;
    outcome = await cfg.model.turn(modelRequest(cfg, state), cx);
  }
  return outcome;
}

function turnContext(cfg: LoopConfig): TurnContext {
  const { call } = cfg;
  return {
    signal: call.signal,
    onText: (text) => call.emit({ ...baseOf(cfg), type: "message_delta", text }),
    onRetry: (attempt, reason, delayMs) =>
      call.emit({ ...baseOf(cfg), type: "retry", attempt, reason, delayMs }),
  };
}

/** A response: its usage metered, its content said and added to the conversation. */
function received(
  cfg: LoopConfig,
  state: LoopState,
  outcome: Extract<TurnOutcome, { kind: "message" }>,
): Response {
  const { call } = cfg;
  const base = baseOf(cfg);
  const msg = outcome.message;
  meterTurn(cfg, state, addUsage(ZERO_USAGE, msg.usage));
  state.compactedForLimit = false;
  const content = toParams(msg.content);
  call.emit({ ...base, type: "message_end", turn: state.turns, stopReason: msg.stop_reason, content });
  for (const c of serverCalls(content, state.offered.servers))
    call.emit({ ...base, type: "server_tool", ...c });
  const invalid = outcome.invalidInputs;
  const uses: ToolUse[] = content.flatMap((b) =>
    b.type === "tool_use"
      ? [
          {
            id: b.id,
            name: b.name,
            input: b.input,
            ...(invalid?.has(b.id) && { invalidInput: invalid.get(b.id) }),
          },
        ]
      : [],
  );
  addAssistant(state.messages, content);
  return { content, uses, stop: msg.stop_reason };
}

function meterTurn(cfg: LoopConfig, state: LoopState, usage: ReturnType<typeof addUsage>): void {
  const meter = cfg.call.state.meter;
  const model = currentModel(cfg, state);
  const costUsd = costOf(model, usage, cfg.prices);
  const unpriced = priceOf(model, cfg.prices) === undefined ? { costUnknown: true as const } : {};
  meter.usage = addUsage(meter.usage, usage);
  meter.costUsd += costUsd;
  if (cfg.budget) charge(cfg.budget, costUsd);
  if (unpriced.costUnknown) meter.costUnknown = true;
  cfg.call.emit({ ...baseOf(cfg), type: "usage", turn: state.turns, usage, costUsd, ...unpriced });
  state.contextTokens = contextTokens(usage);
}

/**
 * The response joins the conversation; after a `pause_turn` it goes on the paused assistant
 * message (the API took that one back as the turn to continue), so that roles keep alternating.
 */
function addAssistant(messages: MessageParam[], content: readonly ContentBlockParam[]): void {
  if (content.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    const before =
      typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
    messages[messages.length - 1] = { role: "assistant", content: [...before, ...content] };
  } else messages.push({ role: "assistant", content: [...content] });
}

/** Response blocks as request blocks; empty text blocks dropped (the API refuses them). */
function toParams(content: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of content) {
    if (b.type === "text") {
      if (b.text !== "") out.push({ type: "text", text: b.text });
    } else if (b.type === "tool_use") {
      // The API takes an object back; a string or list the model sent is sent back as parsed.
      const n = normaliseInput(b.name, b.input);
      out.push({ type: "tool_use", id: b.id, name: b.name, input: n.ok ? { ...n.input } : {} });
    } else {
      out.push(b as unknown as ContentBlockParam);
    }
  }
  return out;
}
