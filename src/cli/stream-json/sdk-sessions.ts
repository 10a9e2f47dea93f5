import { copyCheckpoints } from "../../loop/checkpoints.js";
import type { RunEvent } from "../../loop/events.js";
import {
  checkSessionId,
  fileTranscripts,
  newSessionId,
  SessionError,
  sessionsDir,
  type TranscriptStore,
} from "../../loop/transcript.js";

/**
 * Sessions kept in memory, for `--no-session-persistence`: the turns of one process still make one
 * conversation, and nothing is written to disk.
 */
export function memoryTranscripts(): TranscriptStore {
  const sessions = new Map<string, RunEvent[]>();
  return {
    open(id) {
      const events = sessions.get(id) ?? [];
      sessions.set(id, events);
      return { write: (e) => events.push(e), intact: true };
    },
    read(id) {
      const events = sessions.get(id);
      if (!events) throw new SessionError(`no session '${id}' in this process (--no-session-persistence)`);
      return { events: [...events], skipped: 0 };
    },
  };
}

/** The project's own sessions, where a runner on it keeps them. */
export const projectTranscripts = (runner: { readonly projectDir: string }): TranscriptStore =>
  fileTranscripts(sessionsDir(runner.projectDir));

/**
 * `--fork-session`: session `from`'s events copied into a new session (`to`, or a fresh id), which
 * a resume then goes on with; `from` stays as it was. Throws SessionError for an unknown session.
 */
export async function forkSession(
  store: TranscriptStore | { readonly projectDir: string },
  from: string,
  to?: string,
): Promise<string> {
  const s = "open" in store ? store : projectTranscripts(store);
  const { events } = await s.read(checkSessionId(from));
  const id = checkSessionId(to ?? newSessionId());
  if (id === from) throw new SessionError("--fork-session needs a new --session-id, not the one resumed");
  const out = s.open(id, () => {});
  for (const e of events) out.write(e);
  // Its checkpoints too, so that the fork can rewind its files as the original could.
  if (s.dir !== undefined) copyCheckpoints(s.dir, from, id);
  return id;
}
