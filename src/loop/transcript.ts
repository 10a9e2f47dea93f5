import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { AgentmdError } from "../shared/errors.js";
import type { RunEvent } from "./events.js";

/** Where a project's transcripts live: `.agentmd/sessions/<id>.jsonl`. */
export function sessionsDir(projectDir: string): string {
  return path.join(projectDir, ".agentmd", "sessions");
}

/** `20261130-101203-a1b2c3`: sortable by time, unique enough, safe as a file name. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class SessionError extends AgentmdError {}

/** Throws `SessionError` unless `id` can name a session (it is a file name, so a narrow one). */
export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id) || id.includes("..")) throw new SessionError(`'${id}' is not a session id`);
  return id;
}

export function sessionFile(dir: string, id: string): string {
  return path.join(dir, `${checkSessionId(id)}.jsonl`);
}

export interface Transcript {
  readonly file: string;
  write(event: RunEvent): void;
}

/**
 * Where a runner keeps its sessions' events: a folder of JSONL files unless told otherwise (a worker
 * keeps them in Redis, where the next worker finds them). Contract: `open(id).write` never throws
 * and keeps the order of the events; `read(id)` throws `SessionError` when there is no session `id`.
 */
export interface TranscriptStore {
  open(id: string, onError: (message: string) => void): { write(event: RunEvent): void };
  read(id: string): readonly RunEvent[] | Promise<readonly RunEvent[]>;
}

/** The default store: `<dir>/<id>.jsonl`, each event appended as it happens. */
export function fileTranscripts(dir: string): TranscriptStore {
  return {
    open: (id, onError) => openTranscript(dir, id, onError),
    read: (id) => readSessionEvents(dir, id),
  };
}

/**
 * Appends each event as one JSON line the moment it happens (synchronously), so a crash or Ctrl-C
 * loses nothing written so far. A transcript that cannot be written stops writing, and says so once.
 */
export function openTranscript(dir: string, id: string, onError: (message: string) => void): Transcript {
  const file = sessionFile(dir, id);
  let broken = false;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    broken = true;
    onError(`cannot write the transcript ${file}: ${(e as Error).message}`);
  }
  return {
    file,
    write(event) {
      if (broken) return;
      try {
        appendFileSync(file, `${JSON.stringify(event)}\n`);
      } catch (e) {
        broken = true;
        onError(`cannot write the transcript ${file}: ${(e as Error).message}`);
      }
    },
  };
}

export function readSessionEvents(dir: string, id: string): RunEvent[] {
  const file = sessionFile(dir, id);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new SessionError(`no session '${id}' in ${dir}`);
  }
  const events: RunEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      // a line cut off by a crash: everything before it still counts
    }
  }
  return events;
}

/**
 * The main run's conversation, rebuilt from its events so that it can be sent again: a tool_use
 * whose results never made it into the transcript (a crash mid-call) is answered as interrupted.
 */
export function conversationOf(events: readonly RunEvent[]): MessageParam[] {
  const messages: MessageParam[] = [];
  let pending: string[] = [];
  const settlePending = () => {
    if (pending.length === 0) return;
    const content: ContentBlockParam[] = pending.map((id) => ({
      type: "tool_result",
      tool_use_id: id,
      content: "Interrupted: the session ended before this call finished. The tool was not executed.",
      is_error: true,
    }));
    messages.push({ role: "user", content });
    pending = [];
  };
  for (const e of events) {
    if (e.depth !== 0) continue;
    if (e.type === "user_message") {
      settlePending();
      messages.push({ role: "user", content: e.content });
    } else if (e.type === "message_end" && e.content.length > 0) {
      settlePending();
      messages.push({ role: "assistant", content: [...e.content] });
      pending = e.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
    } else if (e.type === "turn_end") {
      messages.push({ role: "user", content: [...e.toolResults] });
      pending = [];
    }
  }
  settlePending();
  return messages;
}

export interface SessionSummary {
  readonly id: string;
  readonly modified: Date;
  readonly prompt: string;
  readonly outcome?: string;
  readonly turns: number;
}

/** The sessions of a project, newest first. */
export function listSessions(dir: string): SessionSummary[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const out: SessionSummary[] = [];
  for (const name of names) {
    const id = name.slice(0, -".jsonl".length);
    try {
      const events = readSessionEvents(dir, id);
      const first = events.find((e) => e.type === "user_message" && e.depth === 0);
      const start = events.find((e) => e.type === "run_start" && e.depth === 0);
      const typed = start?.type === "run_start" ? start.input : undefined;
      const ends = events.filter((e) => e.type === "run_end" && e.depth === 0);
      const last = ends[ends.length - 1];
      const said =
        first?.type === "user_message"
          ? typeof first.content === "string"
            ? first.content
            : "(blocks)"
          : "";
      const prompt = typed ?? said;
      out.push({
        id,
        modified: statSync(path.join(dir, name)).mtime,
        prompt,
        turns: ends.reduce((n, e) => n + (e.type === "run_end" ? e.turns : 0), 0),
        ...(last && last.type === "run_end" && { outcome: last.outcome }),
      });
    } catch {
      // not a session file
    }
  }
  return out.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}
