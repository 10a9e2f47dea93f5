import type { Content } from "../invocation/run-types.js";
import type { Runner } from "../invocation/runner.js";
import type { Budget } from "../loop/budget.js";
import type { RunEvent, RunResult } from "../loop/events.js";
import { SessionBusyError, SessionError, type TranscriptStore } from "../loop/transcript.js";
import type { BatchItem } from "./batch-item.js";
import type { BatchResult } from "./batch-result.js";
import { addPaid, type Paid, paidBy, type SessionState, sessionState } from "./session-state.js";

type SessionEnd = NonNullable<Extract<SessionState, { kind: "finished" }>["unclosed"]>["end"];

/**
 * How one item went: finished (now or before), interrupted (its transcript says where), or held:
 * another process is running it now (its session's lock says which), so it was left alone.
 */
export type ItemRun =
  | { readonly kind: "finished"; readonly result: BatchResult; readonly ran: boolean }
  | { readonly kind: "interrupted" }
  | { readonly kind: "held"; readonly message: string }
  /** Stopped because its transcript could not be written (what it did is recorded up to there). */
  | { readonly kind: "unrecorded"; readonly result: BatchResult };

export interface RunItemOptions {
  readonly signal: AbortSignal;
  /** Every event of the run, as it happens (for progress). */
  readonly onEvent?: (event: RunEvent) => void;
  /** Run it again even if it finished with another outcome than `done` (continuing its session). */
  readonly retryFailed?: boolean;
  /** The trace context the job was enqueued in (with tracing on, the run's trace goes on from it). */
  readonly traceparent?: string;
  /** The budget of the item's batch (a queue batch's, kept in Redis), over the runner's. */
  readonly budget?: Budget;
}

/**
 * Runs one item in its own session, as its transcript says: a new item starts; an interrupted one
 * continues where it stopped; a finished one is not run again, its result comes from the
 * transcript. The session is held (the store's lock, when it has one) from before its transcript
 * is read until the run ends, so that two batches started at once never run one item twice; the
 * runner must then use the store without its lock (`withoutLock`). A resumed item's result counts
 * what its earlier runs were paid too. Contract: rejects only when the store cannot be read.
 */
export async function runItem(
  runner: Runner,
  store: TranscriptStore,
  item: BatchItem,
  sessionId: string,
  options: RunItemOptions,
): Promise<ItemRun> {
  let release: (() => void) | undefined;
  try {
    release = store.lock?.(sessionId);
  } catch (e) {
    if (e instanceof SessionBusyError) return { kind: "held", message: e.message };
    throw e;
  }
  try {
    return await runHeld(runner, store, item, sessionId, options);
  } finally {
    release?.();
  }
}

/** The store for the runners of items `runItem` holds: the same transcripts, no second lock. */
export function withoutLock<T extends TranscriptStore>(store: T): Omit<T, "lock"> {
  const { lock: _heldByRunItem, ...rest } = store;
  return rest;
}

async function runHeld(
  runner: Runner,
  store: TranscriptStore,
  item: BatchItem,
  sessionId: string,
  options: RunItemOptions,
): Promise<ItemRun> {
  const events = await eventsOf(store, sessionId);
  const state = sessionState(events);
  if (state.kind === "finished" && !(options.retryFailed && state.result.outcome !== "done")) {
    if (state.unclosed) closeSession(store, sessionId, state.unclosed.runId, state.unclosed.end);
    return { kind: "finished", result: { id: item.id, sessionId, ...state.result }, ran: false };
  }
  const fresh = state.kind === "new";
  const handle = runner.run(inputOf(item), {
    signal: options.signal,
    ...(fresh ? { sessionId } : { resume: sessionId, continue: true }),
    ...(item.agent !== undefined && { agent: item.agent }),
    ...(options.traceparent && { traceparent: options.traceparent }),
    ...(options.budget && { budget: options.budget }),
  });
  for await (const event of handle) options.onEvent?.(event);
  const r = await handle.result();
  // Each item is a session of its own: it ends with the item (its SessionEnd hooks).
  await runner.endSession(sessionId, "other", (message) =>
    options.onEvent?.({ runId: "", depth: 0, type: "warning", message }),
  );
  if (r.outcome === "aborted") return { kind: "interrupted" };
  const result = resultOf(item, r, fresh ? undefined : paidBy(events));
  return r.unrecorded ? { kind: "unrecorded", result } : { kind: "finished", result, ran: true };
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

/** The run's result; a resumed one's totals add what the session's earlier runs were paid. */
function resultOf(item: BatchItem, r: RunResult, before: Paid | undefined): BatchResult {
  const own: Paid = { turns: r.turns, usage: r.usage, costUsd: r.costUsd };
  const paid = before ? addPaid(before, own) : own;
  return {
    id: item.id,
    sessionId: r.sessionId,
    outcome: r.outcome,
    text: r.text,
    ...paid,
    ...(r.message !== undefined && { message: r.message }),
    ...(before && { resumed: true as const }),
    ...(r.structuredOutput !== undefined && { structured_output: r.structuredOutput }),
  };
}
