import { statSync } from "node:fs";
import { sessionLister } from "../loop/session-list.js";
import { readSession, sessionFile, sessionHolder } from "../loop/transcript.js";
import type { SessionInput } from "./session-page.js";
import type { SessionRow } from "./view-types.js";

/**
 * The project's sessions (its `.agentmd/sessions/` folder), newest first, as the list shows them:
 * a lister that keeps what it read, so that each look reads only what changed since the last.
 */
export function localRows(dir: string): () => SessionRow[] {
  const list = sessionLister(dir);
  return () =>
    list().map((s) => ({
      id: s.id,
      source: "local",
      title: s.prompt.replace(/\s+/g, " ").trim().slice(0, 200),
      modified: s.modified.toISOString(),
      turns: s.turns,
      costUsd: s.costUsd,
      state:
        sessionHolder(dir, s.id) !== undefined ? "running" : s.open ? "interrupted" : (s.outcome ?? "empty"),
    }));
}

/** One session's events, and whether its run goes on now. Throws `SessionError`. */
export function localSession(dir: string, id: string): SessionInput {
  const read = readSession(dir, id);
  return {
    id,
    source: "local",
    events: read.events,
    skipped: read.skipped,
    live: sessionHolder(dir, id) !== undefined,
  };
}

/** What changes when the session does: its size, its time, who holds it. Cheap: one stat. */
export function localStamp(dir: string, id: string): string {
  try {
    const st = statSync(sessionFile(dir, id));
    return `${st.size}:${st.mtimeMs}:${sessionHolder(dir, id) ?? ""}`;
  } catch {
    return "none";
  }
}
