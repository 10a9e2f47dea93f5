import {
  EFFORT_LEVELS,
  type Effort,
  raisedMaxTokens,
  type Thinking,
} from "../definitions/effort-thinking.js";
import { canonicalModelId } from "./providers/provider-models.js";

/**
 * Which models take `effort` and `thinking`, and how, from the API's model and migration pages as
 * of the Claude 5.5 models (docs/formats.md, Effort and thinking, says which). A model that is not
 * in this table is unknown: neither key is sent to it, and the run is told so, rather than a
 * request the API may refuse being guessed at.
 */
export interface ModelFeatures {
  /** The `output_config.effort` levels it takes; empty: it takes no effort. */
  readonly effort: readonly Effort[];
  /** The `thinking` settings it takes: a budget (`enabled` with `budget_tokens`), `adaptive`, `disabled`. */
  readonly thinking: readonly ("budget" | "adaptive" | "disabled")[];
}

const ALL = EFFORT_LEVELS;
const NO_MAX = ["low", "medium", "high"] as const;
const TO_MAX = ["low", "medium", "high", "max"] as const;
/** Before effort: thinking by a budget, or none. */
const BUDGET_ONLY: ModelFeatures = { effort: [], thinking: ["budget", "disabled"] };

/**
 * By model id: the id as written, or one of its dated snapshots (`claude-sonnet-4-5-20250929`). A
 * prefix is never enough: `claude-opus-5` says nothing of `claude-opus-5-5`.
 */
export const MODEL_FEATURES: Readonly<Record<string, ModelFeatures>> = {
  "claude-3-7-sonnet": BUDGET_ONLY,
  "claude-sonnet-4": BUDGET_ONLY,
  "claude-sonnet-4-0": BUDGET_ONLY,
  "claude-opus-4": BUDGET_ONLY,
  "claude-opus-4-0": BUDGET_ONLY,
  "claude-opus-4-1": BUDGET_ONLY,
  "claude-sonnet-4-5": BUDGET_ONLY,
  "claude-haiku-4-5": BUDGET_ONLY,
  "claude-opus-4-5": { effort: NO_MAX, thinking: ["budget", "disabled"] },
  // A budget is still taken here, though the API calls it deprecated in favour of adaptive + effort.
  "claude-opus-4-6": { effort: TO_MAX, thinking: ["budget", "adaptive", "disabled"] },
  "claude-sonnet-4-6": { effort: TO_MAX, thinking: ["budget", "adaptive", "disabled"] },
  "claude-opus-4-7": { effort: ALL, thinking: ["adaptive"] },
  "claude-opus-4-8": { effort: ALL, thinking: ["adaptive"] },
  "claude-sonnet-5": { effort: ALL, thinking: ["adaptive", "disabled"] },
  "claude-opus-5": { effort: ALL, thinking: ["adaptive", "disabled"] },
  // Thinking is always on (adaptive); effort is how much of it there is.
  "claude-opus-5-5": { effort: ALL, thinking: ["adaptive"] },
  "claude-fable-5-1": { effort: ALL, thinking: ["adaptive"] },
  // `disabled` is refused here (its lowest setting is `between_tools`, which agentmd does not send).
  "claude-sonnet-5-5": { effort: ALL, thinking: ["adaptive"] },
  "claude-haiku-5-5": { effort: ALL, thinking: ["adaptive", "disabled"] },
};

/** The beta header value a request carrying `output_config.effort` is sent with. */
export const EFFORT_BETA = "effort-2025-11-24";

/** What a model takes (by its id in any provider's spelling); undefined when agentmd does not know it. */
export function featuresOf(given: string): ModelFeatures | undefined {
  const model = canonicalModelId(given);
  if (Object.hasOwn(MODEL_FEATURES, model)) return MODEL_FEATURES[model];
  const dated = /^(.*)-\d{8}$/.exec(model)?.[1];
  return dated !== undefined && Object.hasOwn(MODEL_FEATURES, dated) ? MODEL_FEATURES[dated] : undefined;
}

/** What a run asks of its model's reasoning. */
export interface Reasoning {
  readonly effort?: Effort;
  readonly thinking?: Thinking;
}

/** The request fields `effort` and `thinking` become for one model, and what the run is told. */
export interface ReasoningParams {
  readonly max_tokens: number;
  readonly output_config?: { readonly effort: Effort };
  readonly thinking?:
    | { readonly type: "enabled"; readonly budget_tokens: number }
    | { readonly type: "adaptive" }
    | { readonly type: "disabled" };
  /** One sentence for each key that is not sent (or what was changed to send it), naming model and key. */
  readonly notices: readonly string[];
}

/**
 * `effort` and `thinking` as `model` takes them: each sent only where the table says the model
 * takes that value; otherwise left out, with a notice. A thinking budget that does not fit under
 * `maxTokens` raises `max_tokens` to the budget plus `maxTokens` (a notice says so).
 */
export function reasoningParams(model: string, wants: Reasoning, maxTokens: number): ReasoningParams {
  const notices: string[] = [];
  if (wants.effort === undefined && wants.thinking === undefined) return { max_tokens: maxTokens, notices };
  const features = featuresOf(model);
  if (!features) {
    const keys = [wants.effort !== undefined && "effort", wants.thinking !== undefined && "thinking"];
    const named = keys.filter(Boolean).join(" and ");
    notices.push(
      `${named} not sent: agentmd does not know whether the model ${model} takes ${keys.filter(Boolean).length > 1 ? "them" : "it"} (docs/formats.md, Effort and thinking, lists the models it knows)`,
    );
    return { max_tokens: maxTokens, notices };
  }
  const effort = effortParam(model, features, wants.effort, notices);
  const thinking = thinkingParam(model, features, wants.thinking, notices);
  let max_tokens = maxTokens;
  if (thinking?.type === "enabled") {
    max_tokens = raisedMaxTokens(thinking.budget_tokens, maxTokens);
    if (max_tokens !== maxTokens)
      notices.push(
        `the thinking budget of ${thinking.budget_tokens} tokens does not fit under max_tokens ${maxTokens}: requests to ${model} carry max_tokens ${max_tokens}`,
      );
  }
  return {
    max_tokens,
    ...(effort && { output_config: { effort } }),
    ...(thinking && { thinking }),
    notices,
  };
}

function effortParam(
  model: string,
  features: ModelFeatures,
  effort: Effort | undefined,
  notices: string[],
): Effort | undefined {
  if (effort === undefined) return undefined;
  if (features.effort.includes(effort)) return effort;
  notices.push(
    features.effort.length === 0
      ? `effort '${effort}' not sent: the model ${model} takes no effort`
      : `effort '${effort}' not sent: the model ${model} takes ${features.effort.join(", ")}`,
  );
  return undefined;
}

function thinkingParam(
  model: string,
  features: ModelFeatures,
  thinking: Thinking | undefined,
  notices: string[],
): ReasoningParams["thinking"] {
  if (thinking === undefined) return undefined;
  const kind = typeof thinking === "number" ? "budget" : thinking;
  if (features.thinking.includes(kind))
    return typeof thinking === "number" ? { type: "enabled", budget_tokens: thinking } : { type: thinking };
  const takes = features.thinking.map((k) => (k === "budget" ? "a budget of tokens" : `'${k}'`)).join(", ");
  const what =
    typeof thinking === "number" ? `a thinking budget of ${thinking} tokens` : `thinking '${thinking}'`;
  const steer = features.effort.length > 0 ? "; effort steers how much it thinks" : "";
  notices.push(`${what} not sent: the model ${model} takes ${takes}${steer}`);
  return undefined;
}
