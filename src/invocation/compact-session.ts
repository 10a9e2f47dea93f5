import { summarise } from "../loop/compaction.js";
import type { RunEvent } from "../loop/events.js";
import { checkSessionId, conversationOf, newSessionId, type TranscriptStore } from "../loop/transcript.js";
import { resolveModel, type Usage } from "../model/models.js";
import type { Core } from "./core.js";
import type { SessionHooks } from "./session-hooks.js";

export interface CompactOptions {
  readonly signal?: AbortSignal;
  /** What the summary must keep, beside the usual. */
  readonly instructions?: string;
  /** The model that summarises (default: the main agent's). */
  readonly model?: string;
}

export type Compacted =
  | {
      readonly ok: true;
      readonly sessionId: string;
      readonly summary: string;
      readonly tokensBefore: number;
      readonly usage: Usage;
    }
  | { readonly ok: false; readonly message: string };

/**
 * A session summarised into a new one (the runner's `compact`, `/compact`): its PreCompact hooks
 * may refuse; the new session starts with the summary, and the old one is left as it was.
 */
export async function compactSession(
  core: Core,
  store: TranscriptStore,
  sessionId: string,
  o: CompactOptions,
  sessions: SessionHooks,
): Promise<Compacted> {
  let events: RunEvent[];
  try {
    checkSessionId(sessionId);
    events = (await store.read(sessionId)).events;
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const signal = o.signal ?? new AbortController().signal;
  const pre = await sessions.compacting({ sessionId, emit: () => {}, signal }, o.instructions);
  if (pre.kind === "block" || pre.kind === "failed" || pre.kind === "halt")
    return {
      ok: false,
      message: `a PreCompact hook ${pre.kind === "failed" ? "failed" : "blocked it"}: ${pre.reason}`,
    };
  const model = o.model ? resolveModel(o.model) : core.settings.model;
  const s = await summarise(
    core.model,
    { model, maxTokens: core.settings.maxTokens, ...(o.instructions && { instructions: o.instructions }) },
    conversationOf(events),
    signal,
  );
  if (!s.ok) return s;
  const id = newSessionId();
  const tokensBefore = contextTokens(events);
  const transcript = store.open(id, () => {});
  transcript.write({
    runId: "",
    depth: 0,
    type: "compaction",
    summary: s.summary,
    kept: 0,
    tokensBefore,
    from: sessionId,
  });
  if (!transcript.intact) return { ok: false, message: `the compacted session ${id} could not be written` };
  sessions.compacted(id);
  return { ok: true, sessionId: id, summary: s.summary, tokensBefore, usage: s.usage };
}

/** How many tokens the conversation took at its last model turn (input, cached or not, and output). */
function contextTokens(events: readonly RunEvent[]): number {
  const last = events.findLast((e) => e.type === "usage" && e.depth === 0);
  if (last?.type !== "usage") return 0;
  const u = last.usage;
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
}
