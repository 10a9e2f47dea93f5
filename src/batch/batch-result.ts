import type { RunOutcome } from "../loop/events.js";
import type { Usage } from "../model/models.js";

/**
 * What is kept of one finished run of a batch, and printed as one JSON line: a run's result
 * without its conversation (that stays in the transcript, `sessionId`).
 */
export interface BatchResult {
  readonly id: string;
  readonly sessionId: string;
  readonly outcome: RunOutcome;
  readonly text: string;
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
  /** For a run that did not end `done`: what happened, in one sentence. */
  readonly message?: string;
  /** The run went on from the transcript of an interrupted one. */
  readonly resumed?: true;
  /** It was not run now: it had finished before (running the batch again skips it). */
  readonly skipped?: true;
  /** The worker that finished it (queue runs). */
  readonly worker?: string;
  /** The answer given through StructuredOutput, for a run with an output schema (`text` is its JSON). */
  readonly structured_output?: unknown;
}

/** A run that did not end `done` makes its batch fail. */
export const failed = (r: Pick<BatchResult, "outcome">): boolean => r.outcome !== "done";

/** A stored or printed result, read back: `undefined` unless it has a result's shape. */
export function batchResultOf(value: unknown): BatchResult | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const usage = r.usage as Record<string, unknown> | undefined;
  const ok =
    typeof r.id === "string" &&
    typeof r.sessionId === "string" &&
    typeof r.outcome === "string" &&
    typeof r.text === "string" &&
    typeof r.turns === "number" &&
    typeof r.costUsd === "number" &&
    typeof usage === "object" &&
    usage !== null &&
    typeof usage.input_tokens === "number" &&
    typeof usage.output_tokens === "number";
  return ok ? (value as BatchResult) : undefined;
}
