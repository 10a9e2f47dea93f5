import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { Usage } from "../model/models.js";
import type { EventSink, RunOutcome, RunResult } from "./events.js";

/** How a run ended: the one object its `run_end` event and its result are both made of. */
export interface RunEnd {
  readonly outcome: RunOutcome;
  /** The final assistant text. */
  readonly text: string;
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly costUnknown?: true;
  /** For `error`, `refused`, `limit` and `declined`: what happened, in one sentence (not in run_end). */
  readonly message?: string;
}

export interface EndingRun {
  readonly runId: string;
  readonly depth: number;
  readonly sessionId: string;
  readonly emit: EventSink;
}

/**
 * Says the run's end and returns its result. Contract: the `run_end` event and the result are
 * made from the same `end`, so they cannot disagree; `messages` is handed back as it is.
 */
export function endRun(
  run: EndingRun,
  end: RunEnd,
  messages: readonly MessageParam[],
  ms: number,
): RunResult {
  const { message, ...said } = end;
  run.emit({ runId: run.runId, depth: run.depth, type: "run_end", ...said, ms });
  return {
    sessionId: run.sessionId,
    runId: run.runId,
    ...said,
    messages,
    ...(message !== undefined && { message }),
  };
}

/** The last assistant message's text: what a run answered. */
export function lastAssistantText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageParam;
    if (m.role !== "assistant") continue;
    if (typeof m.content === "string") return m.content;
    const text = m.content
      .filter((b): b is ContentBlockParam & { type: "text"; text: string } => b.type === "text")
      .map((b) => b.text)
      .join("");
    if (text !== "") return text;
  }
  return "";
}
