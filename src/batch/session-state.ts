import type { RunEvent } from "../loop/events.js";
import { conversationOf } from "../loop/transcript.js";
import { addUsage, type Usage, ZERO_USAGE } from "../model/models.js";
import type { BatchResult } from "./batch-result.js";

type Ended = Omit<BatchResult, "id" | "sessionId" | "skipped" | "worker">;

/** What a session's runs were paid: turns, tokens and cost, over every run it holds. */
export interface Paid {
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
}

export const NOTHING_PAID: Paid = { turns: 0, usage: ZERO_USAGE, costUsd: 0 };

export const addPaid = (a: Paid, b: Paid): Paid => ({
  turns: a.turns + b.turns,
  usage: addUsage(a.usage, b.usage),
  costUsd: a.costUsd + b.costUsd,
});

/**
 * Where an item's session stands, read from its transcript alone (any machine can tell):
 * - `new`: nothing was sent yet (no transcript, or it stops before the prompt);
 * - `interrupted`: the run was cut off (Ctrl-C, a crash, a killed worker): continue it;
 * - `finished`: it ended, with this result; running it again would repeat finished work.
 * A finished result counts what every run of the session was paid (a resumed item's earlier part
 * too), not only its last run's.
 */
export type SessionState =
  | { readonly kind: "new" }
  | { readonly kind: "interrupted" }
  | {
      readonly kind: "finished";
      readonly result: Ended;
      /** The run's end was never written (see `answeredBeforeItsEnd`): the run to close, and its end. */
      readonly unclosed?: { readonly runId: string; readonly end: Ended };
    };

export function sessionState(events: readonly RunEvent[]): SessionState {
  const top = events.filter((e) => e.depth === 0);
  const lastStart = top.findLastIndex((e) => e.type === "run_start");
  const lastEnd = top.findLastIndex((e) => e.type === "run_end");
  const end = top[lastEnd];
  const resumed = top.filter((e) => e.type === "run_start").length > 1;
  if (end?.type === "run_end" && lastEnd > lastStart && end.outcome !== "aborted") {
    const said = top.slice(lastStart + 1, lastEnd).findLast(isNote);
    return {
      kind: "finished",
      result: {
        outcome: end.outcome,
        text: end.text,
        ...paidBy(events),
        ...(said && "message" in said && { message: said.message }),
        ...(resumed && { resumed: true as const }),
        ...(end.structuredOutput !== undefined && { structured_output: end.structuredOutput }),
      },
    };
  }
  if (!top.some((e) => e.type === "user_message")) return { kind: "new" };
  return answeredBeforeItsEnd(events) ?? { kind: "interrupted" };
}

const isNote = (e: RunEvent) => e.type === "error" || e.type === "limit" || e.type === "refusal";

/**
 * What the runs of a transcript were paid, run by run: a run that ended (even aborted) counts its
 * end's totals (its subagents' within them); a run cut off before its end (a killed process)
 * counts the usage of every turn it wrote, at every depth, and its own turns.
 */
export function paidBy(events: readonly RunEvent[]): Paid {
  let paid = NOTHING_PAID;
  for (const run of runsOf(events)) paid = addPaid(paid, paidByRun(run));
  return paid;
}

/** The events of each top-level run of a transcript, from its `run_start` to the next one. */
function runsOf(events: readonly RunEvent[]): RunEvent[][] {
  const runs: RunEvent[][] = [];
  for (const e of events) {
    if (e.depth === 0 && e.type === "run_start") runs.push([]);
    runs.at(-1)?.push(e);
  }
  return runs;
}

function paidByRun(run: readonly RunEvent[]): Paid {
  const end = run.findLast((e) => e.depth === 0 && e.type === "run_end");
  if (end?.type === "run_end") return { turns: end.turns, usage: end.usage, costUsd: end.costUsd };
  let paid = NOTHING_PAID;
  for (const e of run) {
    if (e.type !== "usage") continue;
    paid = addPaid(paid, { turns: e.depth === 0 ? 1 : 0, usage: e.usage, costUsd: e.costUsd });
  }
  return paid;
}

/**
 * A run whose model had given its final answer, cut off before its `run_end` was written: it is
 * finished (continuing it would ask the model again for an answer it gave), its end is rebuilt
 * from the events of its turns.
 */
function answeredBeforeItsEnd(events: readonly RunEvent[]): SessionState | undefined {
  const top = events.filter((e) => e.depth === 0);
  const last = conversationOf(top).at(-1);
  if (last?.role !== "assistant" || !Array.isArray(last.content)) return undefined;
  if (last.content.some((b) => b.type === "tool_use")) return undefined;
  const lastEnd = top.findLast((e) => e.type === "message_end");
  if (lastEnd?.type !== "message_end" || lastEnd.stopReason !== "end_turn") return undefined;
  const text = lastEnd.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  const runs = runsOf(events);
  const end: Ended = { outcome: "done", text, ...paidByRun(runs.at(-1) ?? []), resumed: true };
  return {
    kind: "finished",
    result: { ...end, ...paidBy(events) },
    unclosed: { runId: lastEnd.runId, end },
  };
}
