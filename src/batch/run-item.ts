import type { Content } from "../invocation/run-types.js";
import type { Runner } from "../invocation/runner.js";
import type { RunEvent, RunResult } from "../loop/events.js";
import { SessionError, type TranscriptStore } from "../loop/transcript.js";
import type { BatchItem } from "./batch-item.js";
import type { BatchResult } from "./batch-result.js";
import { type SessionState, sessionState } from "./session-state.js";

type SessionEnd = Extract<SessionState, { kind: "finished" }>["result"];

/** How one item went: finished (now or before), or interrupted (its transcript says where). */
export type ItemRun =
  | { readonly kind: "finished"; readonly result: BatchResult; readonly ran: boolean }
  | { readonly kind: "interrupted" };

export interface RunItemOptions {
  readonly signal: AbortSignal;
  /** Every event of the run, as it happens (for progress). */
  readonly onEvent?: (event: RunEvent) => void;
  /** Run it again even if it finished with another outcome than `done` (continuing its session). */
  readonly retryFailed?: boolean;
  /** The trace context the job was enqueued in (with tracing on, the run's trace goes on from it). */
  readonly traceparent?: string;
}

/**
 * Runs one item in its own session, as its transcript says: a new item starts; an interrupted one
 * continues where it stopped; a finished one is not run again, its result comes from the
 * transcript. Contract: rejects only when the store cannot be read.
 */
export async function runItem(
  runner: Runner,
  store: TranscriptStore,
  item: BatchItem,
  sessionId: string,
  options: RunItemOptions,
): Promise<ItemRun> {
  const state = sessionState(await eventsOf(store, sessionId));
  if (state.kind === "finished" && !(options.retryFailed && state.result.outcome !== "done")) {
    if (state.unclosed) closeSession(store, sessionId, state.unclosed.runId, state.result);
    return { kind: "finished", result: { id: item.id, sessionId, ...state.result }, ran: false };
  }
  const fresh = state.kind === "new";
  const handle = runner.run(inputOf(item), {
    signal: options.signal,
    ...(fresh ? { sessionId } : { resume: sessionId, continue: true }),
    ...(item.agent !== undefined && { agent: item.agent }),
    ...(options.traceparent && { traceparent: options.traceparent }),
  });
  for await (const event of handle) options.onEvent?.(event);
  const r = await handle.result();
  if (r.outcome === "aborted") return { kind: "interrupted" };
  return { kind: "finished", result: resultOf(item, r, !fresh), ran: true };
}

/** `line` is typed as in the REPL; a `prompt` is plain text even when it starts with `/`. */
export function inputOf(item: BatchItem): Content {
  const { kind, text } = item.input;
  if (kind === "line" || !text.trimStart().startsWith("/")) return text;
  return [{ type: "text", text }];
}

/** Writes the end of a run that had answered but was cut off before its end was written. */
function closeSession(store: TranscriptStore, id: string, runId: string, r: SessionEnd): void {
  const { outcome, text, turns, usage, costUsd } = r;
  store
    .open(id, () => {})
    .write({ runId, depth: 0, type: "run_end", outcome, text, turns, usage, costUsd, ms: 0 });
}

async function eventsOf(store: TranscriptStore, id: string): Promise<readonly RunEvent[]> {
  try {
    return (await store.read(id)).events;
  } catch (e) {
    if (e instanceof SessionError) return [];
    throw e;
  }
}

function resultOf(item: BatchItem, r: RunResult, resumed: boolean): BatchResult {
  return {
    id: item.id,
    sessionId: r.sessionId,
    outcome: r.outcome,
    text: r.text,
    turns: r.turns,
    usage: r.usage,
    costUsd: r.costUsd,
    ...(r.message !== undefined && { message: r.message }),
    ...(resumed && { resumed: true as const }),
  };
}
