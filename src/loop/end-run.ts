import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { EventSink, RunEnd, RunResult } from "./events.js";

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
