import { checkpointsDir, openTurnCheckpoints, readCheckpoints } from "../loop/checkpoints.js";
import type { EventStream } from "../loop/event-stream.js";
import type { RunEvent } from "../loop/events.js";
import { type FileRewind, rewindFiles } from "../loop/rewind-files.js";
import { liveEvents, SessionError, type TranscriptStore } from "../loop/transcript.js";
import { decide } from "../permissions/decide.js";
import { denialText } from "../permissions/denial-text.js";
import { realPathOf } from "../tools/real-path.js";
import type { Core } from "./core.js";
import type { RunnerOptions } from "./runner-options.js";

/** One prompt of a session's conversation as it stands: what `/rewind` lists. */
export interface PromptTurn {
  /** Its place in the conversation: the session's N-th prompt (from 1). */
  readonly n: number;
  /** Its top run. */
  readonly runId: string;
  readonly prompt: string;
  /** The files its calls (at every hop) changed or created, as kept by its checkpoint. */
  readonly files: readonly string[];
  /** It ran Bash: what that changed is not in the checkpoint. */
  readonly ranBash: boolean;
}

export interface RewindRequest {
  /** The N-th prompt of the conversation, or the Agent SDK's id of its user message. */
  readonly to: number | { readonly promptId: string };
  /** Put the files back as they were just before that prompt. */
  readonly code: boolean;
  /** Cut the conversation back to just before that prompt: a resume goes on from there. */
  readonly conversation: boolean;
  /** Put back files changed outside agentmd since the checkpoint too. */
  readonly force?: boolean;
  /** Say what would be done; change nothing. */
  readonly dryRun?: boolean;
}

export type RewindReport =
  | { readonly ok: false; readonly message: string }
  | {
      readonly ok: true;
      readonly turn: PromptTurn | undefined;
      readonly files?: FileRewind;
      /** The prompts at or after the turn that ran Bash (their numbers). */
      readonly bashPrompts: readonly number[];
      readonly conversation: boolean;
    };

/** The prompts of a session's conversation as it stands, with what each changed. Throws SessionError. */
export async function promptTurns(store: TranscriptStore, id: string): Promise<PromptTurn[]> {
  return turnsOf((await store.read(id)).events, store, id);
}

function turnsOf(events: readonly RunEvent[], store: TranscriptStore, id: string): PromptTurn[] {
  const lines = store.dir === undefined ? [] : readCheckpoints(checkpointsDir(store.dir, id));
  const live = liveEvents(events);
  const out: PromptTurn[] = [];
  for (const e of live) {
    if (e.type !== "run_start" || e.depth !== 0) continue;
    const said = live.find((x) => x.type === "user_message" && x.runId === e.runId && x.depth === 0);
    const content = said?.type === "user_message" ? said.content : undefined;
    const prompt = e.input ?? (typeof content === "string" ? content : content ? textOf(content) : "");
    const mine = lines.filter((l) => l.turn === e.runId);
    const files = [
      ...new Set(mine.flatMap((l) => (l.t === "before" || l.t === "untracked" ? [l.file] : []))),
    ];
    out.push({
      n: out.length + 1,
      runId: e.runId,
      prompt,
      files,
      ranBash: mine.some((l) => l.t === "bash"),
    });
  }
  return out;
}

const textOf = (blocks: readonly unknown[]): string =>
  blocks
    .map((b) =>
      (b as { type?: unknown; text?: unknown }).type === "text" ? String((b as { text: unknown }).text) : "",
    )
    .join(" ")
    .trim();

/**
 * Rewinds a session to just before one of its prompts: its files (every hop's edits of that turn
 * and the later ones), its conversation, or both. A file is written back only where the session's
 * Write would be allowed now. Contract: throws only SessionError (an unknown or busy session).
 */
export async function rewindSession(
  core: Core,
  store: TranscriptStore,
  id: string,
  request: RewindRequest,
): Promise<RewindReport> {
  const { events } = await store.read(id);
  const turns = turnsOf(events, store, id);
  const dir = store.dir === undefined ? undefined : checkpointsDir(store.dir, id);
  // Every top run in the order the session ran them, those a conversation rewind cut included.
  const runs = events.flatMap((e) => (e.type === "run_start" && e.depth === 0 ? [e] : []));
  const target = turnOf(turns, runs, request.to);
  if ("message" in target) return { ok: false, ...target };
  const { turn, runId } = target;
  if (request.code && dir === undefined)
    return { ok: false, message: "this session keeps no checkpoints of its files (it is not kept in files)" };
  if (request.conversation && !turn)
    return { ok: false, message: "that prompt is no longer part of the conversation" };
  const from = runs.findIndex((r) => r.runId === runId);
  const later = new Set(runs.slice(from).map((r) => r.runId));
  const lines = dir === undefined ? [] : readCheckpoints(dir);
  const files =
    request.code && dir !== undefined
      ? rewindFiles(dir, lines, later, {
          ...(request.force && { force: true }),
          ...(request.dryRun && { dryRun: true }),
          mayWrite: (file) => writeRefusal(core, file),
        })
      : undefined;
  if (request.conversation && !request.dryRun && turn) rewindConversation(store, id, turn.runId);
  const bashPrompts = turns.filter((t) => later.has(t.runId) && t.ranBash).map((t) => t.n);
  return { ok: true, turn, ...(files && { files }), bashPrompts, conversation: request.conversation };
}

function turnOf(
  turns: readonly PromptTurn[],
  runs: readonly Extract<RunEvent, { type: "run_start" }>[],
  to: RewindRequest["to"],
): { turn: PromptTurn | undefined; runId: string } | { message: string } {
  if (typeof to === "number") {
    const turn = turns[to - 1];
    if (!Number.isInteger(to) || !turn)
      return {
        message: `no prompt ${to} in this session: it has ${turns.length} prompt${turns.length === 1 ? "" : "s"}${turns.length > 0 ? ` (1 to ${turns.length})` : ""}`,
      };
    return { turn, runId: turn.runId };
  }
  const run = runs.find((r) => r.promptId === to.promptId);
  if (!run) return { message: `no user message '${to.promptId}' in this session` };
  return { turn: turns.find((t) => t.runId === run.runId), runId: run.runId };
}

/** Why the session's main agent could not write `file` now (a Write judged as a run judges it). */
function writeRefusal(core: Core, file: string): string | undefined {
  const judged = { specs: core.catalog.specs, cwd: core.cwd, realPath: realPathOf };
  const call = { tool: "Write", input: { file_path: file, content: "" } };
  const d = decide(core.ceiling, call, judged);
  if (d.kind === "denied") return denialText(d);
  const a = core.approval.check(call, judged, [], core.ceiling);
  return a.kind === "denied" ? a.message : undefined;
}

/** The conversation cut back to just before top run `to`: a `rewind` event, under the session's lock. */
function rewindConversation(store: TranscriptStore, id: string, to: string): void {
  const release = store.lock?.(id);
  try {
    let failed: string | undefined;
    const out = store.open(id, (m) => {
      failed = m;
    });
    out.write({ runId: "", depth: 0, type: "rewind", to });
    if (failed !== undefined) throw new SessionError(failed);
  } finally {
    release?.();
  }
}

/**
 * The checkpoints of a prompt's turn, for a store of files (a worker's Redis store keeps none) unless
 * the runner turns them off; a folder that cannot be written is said once, as a warning.
 */
export function turnCheckpoint(
  store: TranscriptStore,
  options: RunnerOptions,
  sessionId: string,
  events: EventStream<RunEvent>,
) {
  const off = options.checkpoints === false || options.transcript?.enabled === false;
  if (store.dir === undefined || off) return undefined;
  const warn = (message: string) => events.push({ runId: "", depth: 0, type: "warning", message });
  return openTurnCheckpoints(checkpointsDir(store.dir, sessionId), warn);
}

/** The prompt's top run starting: its checkpoint begins, and its `run_start` carries the caller's prompt id. */
export function topStart(
  event: RunEvent,
  promptId: string | undefined,
  checkpoint?: { begin(id: string): void },
) {
  if (event.type !== "run_start" || event.depth !== 0) return event;
  checkpoint?.begin(event.runId);
  return promptId === undefined ? event : { ...event, promptId };
}
