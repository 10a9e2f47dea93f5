import {
  baseOf,
  compact,
  type Ending,
  type LoopConfig,
  type LoopState,
  type Response,
} from "./loop-state.js";
import { MAX_STRUCTURED_ATTEMPTS, REMINDER } from "./structured-output.js";

export type Next = { readonly kind: "continue" } | { readonly kind: "end"; readonly ending: Ending };

const CONTINUE: Next = { kind: "continue" };
const end = (outcome: Ending["outcome"], message?: string): Next => ({
  kind: "end",
  ending: { outcome, ...(message !== undefined && { message }) },
});

/**
 * The decide-what's-next step, once the response's calls are answered: another turn, or the end,
 * by what the response's stop reason says (and whether the run was aborted meanwhile).
 */
export async function nextStep(cfg: LoopConfig, state: LoopState, response: Response): Promise<Next> {
  const emit = cfg.call.emit;
  const base = baseOf(cfg);
  const { stop } = response;
  if (stop === "max_tokens") {
    const message = "the response hit max_tokens and was cut off";
    emit({ ...base, type: "limit", kind: "max_tokens", message });
    // A call cut off is answered and the model may try again; a text cut off is the end.
    return response.uses.length > 0 ? CONTINUE : end("limit", message);
  }
  if (stop === "refusal") {
    const message = "the model declined to answer (stop reason: refusal)";
    emit({ ...base, type: "refusal", message });
    return end("declined", message);
  }
  if (cfg.call.signal.aborted && response.uses.length > 0) return end("aborted");
  if (cfg.outputSchema) {
    const structured = structuredStep(cfg, state, response);
    if (structured) return structured;
  }
  if (response.uses.length > 0) return CONTINUE;
  if (stop === "pause_turn") return CONTINUE;
  if (stop === "model_context_window_exceeded") return overTheWindow(cfg, state);
  return end("done");
}

/**
 * A run with an output schema ends once StructuredOutput was called with a matching answer, or
 * after too many failed attempts; an answer in text alone is reminded (an attempt too), never
 * taken as success without the structured answer.
 */
function structuredStep(cfg: LoopConfig, state: LoopState, response: Response): Next | undefined {
  const s = state.structured;
  if (s.accepted) return end("done");
  const textOnly = response.uses.length === 0 && response.stop !== "pause_turn";
  if (textOnly && response.stop !== "model_context_window_exceeded") {
    s.attempts++;
    if (s.attempts < MAX_STRUCTURED_ATTEMPTS) {
      state.messages.push({ role: "user", content: REMINDER });
      cfg.call.emit({ ...baseOf(cfg), type: "user_message", content: REMINDER });
      return CONTINUE;
    }
  }
  if (s.attempts < MAX_STRUCTURED_ATTEMPTS) return undefined;
  const message = `the answer did not match the output schema after ${MAX_STRUCTURED_ATTEMPTS} attempts`;
  cfg.call.emit({ ...baseOf(cfg), type: "limit", kind: "max_structured_output_retries", message });
  return { kind: "end", ending: { outcome: "limit", message, limit: "max_structured_output_retries" } };
}

/** The model stopped at its context window: compacted once and sent again, else the end. */
async function overTheWindow(cfg: LoopConfig, state: LoopState): Promise<Next> {
  if (!state.compactedForLimit) {
    state.compactedForLimit = true;
    if (await compact(cfg, state)) return CONTINUE;
  }
  const message =
    "the conversation no longer fits the model's context window; start a new session or ask for less";
  cfg.call.emit({ ...baseOf(cfg), type: "error", code: "context_window_exceeded", message });
  return end("error", message);
}
