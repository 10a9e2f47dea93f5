/**
 * `effort:` and `thinking:`, as every surface writes them and the command line gives them. What
 * reaches the API for each model is decided in model/model-features.ts; here is only what may be
 * written.
 */

/** The levels of the API's `output_config.effort`, lowest first. */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;

export type Effort = (typeof EFFORT_LEVELS)[number];

/** The least `budget_tokens` the API takes for a thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * `thinking:` a budget of tokens (`thinking: {type: "enabled", budget_tokens: N}`), the model
 * deciding how much (`adaptive`), or no thinking (`disabled`).
 */
export type Thinking = number | "adaptive" | "disabled";

export const isEffort = (value: unknown): value is Effort =>
  typeof value === "string" && (EFFORT_LEVELS as readonly string[]).includes(value);

/** What is wrong with `value` as a `thinking` setting (a sentence after the key), or undefined. */
export function thinkingProblem(value: unknown): string | undefined {
  return readThinking(value).problem;
}

/**
 * A `thinking` setting as written: a budget of tokens, `adaptive`, `disabled`, or the API's own
 * objects for them (`{type: enabled, budget_tokens: N}`, `{type: adaptive}`, `{type: disabled}`);
 * or what is wrong with it (a sentence after the key).
 */
export function readThinking(value: unknown): { thinking?: Thinking; problem?: string } {
  if (value === "adaptive" || value === "disabled") return { thinking: value };
  if (isBudget(value)) return { thinking: value };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return thinkingObject(value);
  const got = typeof value === "string" ? `'${value}'` : JSON.stringify(value);
  return {
    problem: `must be a whole number of tokens (at least ${MIN_THINKING_BUDGET}), 'adaptive', 'disabled' or the API's object ({type: enabled, budget_tokens: N}, {type: adaptive}, {type: disabled}), not ${got}`,
  };
}

const isBudget = (v: unknown): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= MIN_THINKING_BUDGET;

function thinkingObject(value: object): { thinking?: Thinking; problem?: string } {
  const { type, budget_tokens: budget, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (type === "enabled") {
    if (extra.length > 0)
      return { problem: `{type: enabled} takes only budget_tokens, not ${extra.join(", ")}` };
    if (isBudget(budget)) return { thinking: budget };
    return {
      problem: `{type: enabled} needs budget_tokens, a whole number of tokens (at least ${MIN_THINKING_BUDGET}), not ${budget === undefined ? "none" : JSON.stringify(budget)}`,
    };
  }
  if (type === "adaptive" || type === "disabled") {
    const more = [...(budget !== undefined ? ["budget_tokens"] : []), ...extra];
    if (more.length > 0) return { problem: `{type: ${type}} takes no other key, not ${more.join(", ")}` };
    return { thinking: type };
  }
  return { problem: `type must be enabled, adaptive or disabled, not ${JSON.stringify(type)}` };
}

/**
 * Why a thinking budget does not fit under `maxTokens` (the API needs `max_tokens` above
 * `budget_tokens`), or undefined when it does (or `maxTokens` is not a number).
 */
export function budgetFitProblem(
  budget: number,
  maxTokens: unknown,
  where = "maxTokens",
): string | undefined {
  if (typeof maxTokens !== "number" || budget < maxTokens) return undefined;
  return `the thinking budget of ${budget} tokens does not fit under ${where} (${maxTokens}): the API needs max_tokens above it, so requests carry max_tokens ${raisedMaxTokens(budget, maxTokens)} (the budget plus ${where}); raise ${where} or lower the budget`;
}

/**
 * `max_tokens` for a request with a thinking budget: as given when the budget fits under it, else
 * the budget plus it, so that the answer after the thinking still has what it was given.
 */
export const raisedMaxTokens = (budget: number, maxTokens: number): number =>
  budget < maxTokens ? maxTokens : budget + maxTokens;
