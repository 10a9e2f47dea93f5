import type { RunEvent } from "../loop/events.js";
import { conversationOf } from "../loop/transcript.js";
import { addUsage, ZERO_USAGE } from "../model/models.js";
import type { BatchResult } from "./batch-result.js";

type Ended = Omit<BatchResult, "id" | "sessionId" | "skipped" | "worker">;

/**
 * Where an item's session stands, read from its transcript alone (any machine can tell):
 * - `new`: nothing was sent yet (no transcript, or it stops before the prompt);
 * - `interrupted`: the run was cut off (Ctrl-C, a crash, a killed worker): continue it;
 * - `finished`: it ended, with this result; running it again would repeat finished work.
 */
export type SessionState =
  | { readonly kind: "new" }
  | { readonly kind: "interrupted" }
  | {
      readonly kind: "finished";
      readonly result: Ended;
      /** The run's end was never written (see `answeredBeforeItsEnd`): the run to close. */
      readonly unclosed?: { readonly runId: string };
    };

export function sessionState(events: readonly RunEvent[]): SessionState {
  const top = events.filter((e) => e.depth === 0);
  const lastStart = top.findLastIndex((e) => e.type === "run_start");
  const lastEnd = top.findLastIndex((e) => e.type === "run_end");
  const end = top[lastEnd];
  if (end?.type === "run_end" && lastEnd > lastStart && end.outcome !== "aborted") {
    const said = top.slice(lastStart + 1, lastEnd).findLast(isNote);
    return {
      kind: "finished",
      result: {
        outcome: end.outcome,
        text: end.text,
        turns: end.turns,
        usage: end.usage,
        costUsd: end.costUsd,
        ...(said && "message" in said && { message: said.message }),
        ...(top.filter((e) => e.type === "run_start").length > 1 && { resumed: true as const }),
        ...(end.structuredOutput !== undefined && { structured_output: end.structuredOutput }),
      },
    };
  }
  if (!top.some((e) => e.type === "user_message")) return { kind: "new" };
  return answeredBeforeItsEnd(top) ?? { kind: "interrupted" };
}

const isNote = (e: RunEvent) => e.type === "error" || e.type === "limit" || e.type === "refusal";

/**
 * A run whose model had given its final answer, cut off before its `run_end` was written: it is
 * finished (continuing it would ask the model again for an answer it gave), its result is rebuilt
 * from the events of its turns.
 */
function answeredBeforeItsEnd(top: readonly RunEvent[]): SessionState | undefined {
  const last = conversationOf(top).at(-1);
  if (last?.role !== "assistant" || !Array.isArray(last.content)) return undefined;
  if (last.content.some((b) => b.type === "tool_use")) return undefined;
  const ends = top.filter((e) => e.type === "message_end");
  const lastEnd = ends.at(-1);
  if (lastEnd?.type !== "message_end" || lastEnd.stopReason !== "end_turn") return undefined;
  let usage = ZERO_USAGE;
  let costUsd = 0;
  for (const e of top) {
    if (e.type !== "usage") continue;
    usage = addUsage(usage, e.usage);
    costUsd += e.costUsd;
  }
  const text = lastEnd.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  return {
    kind: "finished",
    result: { outcome: "done", text, turns: ends.length, usage, costUsd, resumed: true },
    unclosed: { runId: lastEnd.runId },
  };
}
