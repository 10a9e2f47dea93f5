import type { ContentBlockParam, MessageParam, StopReason } from "../model/messages.js";
import { dispatchBatch } from "./dispatch.js";
import { notRunResult, type ToolUse } from "./execute-call.js";
import { baseOf, type LoopConfig, type LoopState, type Response } from "./loop-state.js";
import { answerStructured, STRUCTURED_OUTPUT } from "./structured-output.js";

const CUT_OFF =
  "The response hit max_tokens before this call was complete, so it was not executed. Send it again, shorter.";

/**
 * Why the calls of a response are answered without being run, by its stop reason; undefined: they
 * are run. A tool_use under end_turn (or any other stop) is still a call; only a response cut off
 * by max_tokens, or one the model refused to finish, is not acted on.
 */
function notRunBecause(stop: StopReason | null): string | undefined {
  if (stop === "max_tokens") return CUT_OFF;
  if (stop === "refusal") return "Not run: the model stopped with refusal, so this call was not executed.";
  return undefined;
}

/**
 * The answer-calls step: every tool_use of the response gets exactly one tool_result, in the user
 * message right after it, whatever the stop reason. Contract: never rejects.
 */
export async function answerCalls(
  cfg: LoopConfig,
  state: LoopState,
  response: Response,
  known: readonly ContentBlockParam[] = [],
): Promise<void> {
  if (response.uses.length === 0) return;
  const why = notRunBecause(response.stop);
  if (why !== undefined) return answer(cfg, state, notRun(response.uses, why));
  const schema = cfg.outputSchema;
  // StructuredOutput is the loop's own: the answer, judged against the schema; it runs nothing.
  const isAnswer = (u: { name: string }) => schema !== undefined && u.name === STRUCTURED_OUTPUT;
  const knownIds = new Set(known.map((b) => (b.type === "tool_result" ? b.tool_use_id : "")));
  const unknown = response.uses.filter((u) => !knownIds.has(u.id));
  const calls = unknown.filter((u) => !isAnswer(u));
  const answers = schema ? answerStructured(cfg, state, schema, unknown.filter(isAnswer)) : [];
  const results = calls.length > 0 ? await runCalls(cfg, calls) : [];
  answer(cfg, state, inCallOrder(response.uses, [...known, ...answers, ...results]));
}

/**
 * A resumed run whose conversation ends with the model's answer, recorded before its calls all
 * ran: the calls that never started are run now (the others' results are known), as the run that
 * was cut off would have. The model is not asked that turn again.
 */
export async function answerResumed(cfg: LoopConfig, state: LoopState): Promise<void> {
  const uses = openCalls(state.messages);
  if (cfg.open === undefined || uses.length === 0) return;
  await answerCalls(cfg, state, { content: [], uses, stop: "tool_use" }, cfg.open);
}

/** Results in the order of the calls they answer (as the API expects them). */
function inCallOrder(uses: readonly ToolUse[], results: readonly ContentBlockParam[]): ContentBlockParam[] {
  const of = (id: string) => results.find((b) => b.type === "tool_result" && b.tool_use_id === id);
  return uses.flatMap((u) => of(u.id) ?? []);
}

async function runCalls(cfg: LoopConfig, uses: readonly ToolUse[]): Promise<ContentBlockParam[]> {
  try {
    return await dispatchBatch(uses, cfg.call, cfg.pool, cfg.concurrency);
  } catch (e) {
    return notRun(uses, `This call could not be dispatched (${(e as Error).message}); it may not have run.`);
  }
}

const notRun = (uses: readonly ToolUse[], why: string) => uses.map((u) => notRunResult(u, why));

function answer(cfg: LoopConfig, state: LoopState, results: ContentBlockParam[]): void {
  state.messages.push({ role: "user", content: results });
  cfg.call.emit({ ...baseOf(cfg), type: "turn_end", turn: state.turns, toolResults: results });
}

/** The tool_use ids of the last message, when it is an assistant message no one has answered. */
function openCalls(messages: readonly MessageParam[]): ToolUse[] {
  const last = messages.at(-1);
  if (last?.role !== "assistant" || typeof last.content === "string") return [];
  return last.content.flatMap((b) =>
    b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input }] : [],
  );
}

/**
 * The last guard of the conversation's contract, at the run's end: a tool_use still unanswered
 * (no step should leave one) is answered as not run, so the result can be sent again.
 */
export function answerOpenCalls(cfg: LoopConfig, state: LoopState): void {
  const open = openCalls(state.messages);
  if (open.length > 0)
    answer(cfg, state, notRun(open, "Not run: the run ended before this call was executed."));
}
