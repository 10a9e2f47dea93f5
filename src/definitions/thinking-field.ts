import type { DiagnosticSink } from "./diagnostics.js";
import { budgetFitProblem, readThinking, type Thinking } from "./effort-thinking.js";
import type { Field } from "./yaml-fields.js";

/**
 * `thinking` of a definition: the setting, or undefined with an error at its value. A budget that
 * does not fit under agent.md's own `maxTokens` is a warning there (the run raises `max_tokens`).
 */
export function readThinkingField(
  field: Field | undefined,
  value: unknown,
  sink: DiagnosticSink,
  maxTokens?: unknown,
): Thinking | undefined {
  if (!field || value === undefined) return undefined;
  const { thinking, problem } = readThinking(value);
  const at = field.valuePos;
  if (problem !== undefined || thinking === undefined) {
    sink.add("error", "value-type", `'thinking' ${problem}`, at.line, at.column);
    return undefined;
  }
  const fit = typeof thinking === "number" ? budgetFitProblem(thinking, maxTokens) : undefined;
  if (fit) sink.add("warning", "thinking-budget", fit, at.line, at.column);
  return thinking;
}
