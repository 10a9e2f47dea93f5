import type { EventSink, RunEvent } from "../loop/events.js";
import {
  conversationOf,
  liveEvents,
  type Resumable,
  resumableOf,
  type TranscriptStore,
} from "../loop/transcript.js";
import { resolveInput } from "../tools/builtin/fs.js";
import { createReadRecord } from "../tools/read-record.js";
import type { ReadRecord } from "../tools/types.js";

/** The tools whose successful call leaves a file read (seen, or written as the model meant it). */
const PATH_KEY: Readonly<Record<string, string>> = {
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

/**
 * The files a session's main run has read, rebuilt from its transcript: read-before-edit belongs to
 * the session, so a resumed one (chat's next message, `-c`, `-r`, `run --resume`) may edit what it
 * read before. Each is taken as read at `seenAt` (when the transcript was last written): a file
 * changed on disk since must be read again. Subagents' reads stay theirs (depth 0 only).
 */
export function sessionReads(events: readonly RunEvent[], cwd: string, seenAt: number): ReadRecord {
  const record = createReadRecord();
  const files = new Map<string, string>();
  for (const e of events) {
    if (e.depth !== 0) continue;
    if (e.type === "tool_start") {
      const key = PATH_KEY[e.name];
      const file =
        key && typeof e.input === "object" && e.input !== null
          ? (e.input as Record<string, unknown>)[key]
          : undefined;
      if (typeof file === "string") files.set(e.id, file);
    } else if (e.type === "tool_end" && e.decision === "allowed" && !e.isError) {
      const file = files.get(e.id);
      if (file !== undefined) record.markRead(resolveInput(cwd, file), { before: seenAt });
    }
  }
  return record;
}

/**
 * A session's conversation and the files it read, to continue it; damaged lines of its transcript
 * are skipped, and said. A store that does not say when it was written: every file is read again.
 */
export async function resumed(
  store: TranscriptStore,
  id: string,
  emit: EventSink,
  cwd: string,
  goesOn: boolean,
): Promise<Resumable & { reads: ReadRecord }> {
  const { events, skipped, modifiedMs } = await store.read(id);
  if (skipped > 0)
    emit({
      runId: "",
      depth: 0,
      type: "warning",
      message: `${skipped} line${skipped === 1 ? "" : "s"} of the session ${id} could not be read (cut off or damaged) and ${skipped === 1 ? "was" : "were"} skipped`,
    });
  // Gone on with where it stopped, its last answer's unstarted calls are run; with a new prompt,
  // they are answered as never run.
  const conversation = goesOn ? resumableOf(events) : { messages: conversationOf(events) };
  return { ...conversation, reads: sessionReads(liveEvents(events), cwd, modifiedMs ?? 0) };
}
