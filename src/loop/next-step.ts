import {
  baseOf,
  compact,
  type Ending,
  type LoopConfig,
  type LoopState,
  type Response,
} from "./loop-state.js";

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
  if (response.uses.length > 0) return cfg.call.signal.aborted ? end("aborted") : CONTINUE;
  if (stop === "pause_turn") return CONTINUE;
  if (stop === "model_context_window_exceeded") return overTheWindow(cfg, state);
  return end("done");
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
