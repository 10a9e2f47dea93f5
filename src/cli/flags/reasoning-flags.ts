import {
  EFFORT_LEVELS,
  type Effort,
  isEffort,
  MIN_THINKING_BUDGET,
  type Thinking,
} from "../../definitions/effort-thinking.js";
import { didYouMean } from "../../shared/did-you-mean.js";
import type { OptionTable } from "./option-table.js";
import { UsageError } from "./usage-error.js";

/**
 * `--effort`, `--thinking` and `--max-thinking-tokens`, spelled as Claude Code spells them (the
 * Agent SDK passes `effort` as `--effort=LEVEL`, and `thinking` as `--thinking=adaptive|disabled`
 * or, with a budget, `--max-thinking-tokens=N`).
 */
export const REASONING_FLAGS = {
  effort: {
    type: "string",
    value: "LEVEL",
    help: [
      "low, medium, high, xhigh or max: output_config.effort of the",
      "requests, on a model that takes it (over agent.md's effort)",
    ],
  },
  thinking: {
    type: "string",
    value: "T",
    help: [
      "adaptive, disabled, or a budget of tokens (at least 1024) for",
      "extended thinking (over agent.md's thinking); also",
      "--max-thinking-tokens N (0: disabled)",
    ],
  },
  "max-thinking-tokens": { type: "string", value: "N", aliasOf: "thinking" },
} as const satisfies OptionTable;

export interface ReasoningValues {
  effort?: string;
  thinking?: string;
  "max-thinking-tokens"?: string;
}

export interface ReasoningOptions {
  readonly effort?: Effort;
  readonly thinking?: Thinking;
}

/** The flags as options; a value that is none of those the API takes is a usage error naming it. */
export function reasoningOptions(v: ReasoningValues): ReasoningOptions {
  const effort = v.effort;
  if (effort !== undefined && !isEffort(effort)) {
    const near = didYouMean(effort, EFFORT_LEVELS);
    throw new UsageError(
      `--effort must be ${EFFORT_LEVELS.join(", ")}, not '${effort}'${near ? `; did you mean '${near}'?` : ""}`,
    );
  }
  if (v.thinking !== undefined && v["max-thinking-tokens"] !== undefined)
    throw new UsageError("--thinking and --max-thinking-tokens cannot be used together");
  const thinking = thinkingFlag(v);
  return { ...(effort && { effort }), ...(thinking !== undefined && { thinking }) };
}

function thinkingFlag(v: ReasoningValues): Thinking | undefined {
  const given = v.thinking;
  if (given !== undefined) {
    if (given === "adaptive" || given === "disabled") return given;
    const budget = tokens(given);
    if (budget !== undefined && budget >= MIN_THINKING_BUDGET) return budget;
    throw new UsageError(
      `--thinking must be adaptive, disabled or a budget of at least ${MIN_THINKING_BUDGET} tokens, not '${given}'`,
    );
  }
  const max = v["max-thinking-tokens"];
  if (max === undefined) return undefined;
  const budget = tokens(max);
  // 0 turns thinking off, as the Agent SDK's maxThinkingTokens: 0 does.
  if (budget === 0) return "disabled";
  if (budget !== undefined && budget >= MIN_THINKING_BUDGET) return budget;
  throw new UsageError(
    `--max-thinking-tokens must be 0 (no thinking) or a whole number of at least ${MIN_THINKING_BUDGET}, not '${max}'`,
  );
}

const tokens = (text: string): number | undefined => (/^\d+$/.test(text.trim()) ? Number(text) : undefined);
