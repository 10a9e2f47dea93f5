import type { Ajv, ValidateFunction } from "ajv";
import type { OutputSchema } from "../definitions/output-schema.js";
import type { ContentBlockParam, ToolUnion } from "../model/messages.js";
import { newAjv } from "../shared/ajv.js";
import { describeErrors } from "../tools/schema-gate.js";
import type { ToolUse } from "./execute-call.js";
import { baseOf, type LoopConfig, type LoopState, type StructuredState } from "./loop-state.js";

/** The tool a run with an output schema answers through, named as Claude Code names it. */
export const STRUCTURED_OUTPUT = "StructuredOutput";

/** Failed attempts (a call that does not match, a text answer without the call) before the run ends. */
export const MAX_STRUCTURED_ATTEMPTS = 5;

export const REMINDER = `You must give your final answer by calling the ${STRUCTURED_OUTPUT} tool, with input that matches its schema. Call it now.`;

/** The tool the requests show: its input schema is the output schema, as written. */
export function structuredOutputTool(schema: OutputSchema): ToolUnion {
  return {
    name: STRUCTURED_OUTPUT,
    description:
      "Give your final answer with this tool, once you have it: its input is the answer, and it must match the schema. Calling it ends your work, so call it last and only once.",
    input_schema: schema as Extract<ToolUnion, { input_schema: unknown }>["input_schema"],
  };
}

const validators = new WeakMap<OutputSchema, ValidateFunction>();
let ajv: Ajv | undefined;

/** The schema's validator (every keyword: ranges and formats are part of the answer's contract). */
function validatorOf(schema: OutputSchema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    ajv ??= newAjv({ allErrors: true, strict: false, verbose: true });
    v = ajv.compile(schema);
    validators.set(schema, v);
  }
  return v;
}

/**
 * Answers the StructuredOutput calls of a response: the first one that matches becomes the run's
 * answer; one that does not is answered with what failed, and counts as an attempt. Each is a
 * tool_start and a tool_end, like any call.
 */
export function answerStructured(
  cfg: LoopConfig,
  state: LoopState,
  schema: OutputSchema,
  uses: readonly ToolUse[],
): ContentBlockParam[] {
  return uses.map((use) => {
    const started = performance.now();
    cfg.call.emit({ ...baseOf(cfg), type: "tool_start", id: use.id, name: use.name, input: use.input });
    const problem = problemOf(schema, use, state.structured);
    const content = problem ?? "Structured output accepted.";
    if (problem === undefined) state.structured.accepted ??= { value: use.input };
    else state.structured.attempts++;
    cfg.call.emit({
      ...baseOf(cfg),
      type: "tool_end",
      id: use.id,
      name: use.name,
      decision: problem === undefined ? "allowed" : "invalid",
      isError: problem !== undefined,
      content,
      ms: performance.now() - started,
    });
    return {
      type: "tool_result" as const,
      tool_use_id: use.id,
      content,
      ...(problem !== undefined && { is_error: true }),
    };
  });
}

function problemOf(schema: OutputSchema, use: ToolUse, structured: StructuredState): string | undefined {
  if (structured.accepted) return "Your answer was already given; this call was not used.";
  if (use.invalidInput !== undefined)
    return `The input was not one complete JSON object, so it was not taken as your answer. Call ${STRUCTURED_OUTPUT} again with input that matches the schema.`;
  const validate = validatorOf(schema);
  if (validate(use.input)) return undefined;
  const problems = describeErrors(validate.errors ?? []);
  return `The output does not match the schema: ${problems}. Call ${STRUCTURED_OUTPUT} again with input that matches it.`;
}
