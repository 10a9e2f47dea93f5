import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import { AgentmdError } from "../shared/errors.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import { identityText, isAlive, ownIdentity, parseIdentity } from "../shared/process-identity.js";
import { summaryMessage } from "./compaction.js";
import type { RunEvent } from "./events.js";

/** Where a project's transcripts live: `.agentmd/sessions/<id>.jsonl`. */
export function sessionsDir(projectDir: string): string {
  return path.join(projectDir, ".agentmd", "sessions");
}

/** `20261130-101203-a1b2c3`: sortable by time, unique enough, safe as a file name. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}-${nodeCrypto().randomBytes(3).toString("hex")}`;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class SessionError extends AgentmdError {}

/** The session is being written by another run now (its lock says which process): try later. */
export class SessionBusyError extends SessionError {}

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
  /** Whether every event so far was written (a resume can rely on the file). */
  readonly intact: boolean;
}

/**
 * Where a runner keeps its sessions' events: a folder of JSONL files unless told otherwise (a worker
 * keeps them in Redis, where the next worker finds them). Contract: `open(id).write` never throws
 * and keeps the order of the events; `read(id)` throws `SessionError` when there is no session `id`;
 * `lock(id)`, when the store has one, holds the session for one run at a time and returns the release.
 */
export interface TranscriptStore {
  open(
    id: string,
    onError: (message: string) => void,
  ): { write(event: RunEvent): void; readonly intact?: boolean; readonly file?: string };
  read(id: string): SessionRead | Promise<SessionRead>;
  lock?(id: string): () => void;
  /** The folder of a store of files: its sessions' checkpoints are kept beside them. */
  readonly dir?: string;
  /** Resolves once every event written so far is stored (a store that writes in the background). Contract: never rejects. */
  flushed?(): Promise<void>;
}

/**
 * Creates the sessions folder. A `.agentmd/` it creates gets a `.gitignore` of `*`, so the run's
 * state never shows as untracked in the repository it ran in (nor is committed by `git add -A`).
 */
function makeSessionsDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true });
  const state = path.dirname(dir);
  if (created === undefined || path.basename(state) !== ".agentmd") return;
  if (path.relative(created, state).startsWith("..")) return;
  try {
    writeFileSync(path.join(state, ".gitignore"), "# agentmd's own state: never committed\n*\n", {
      flag: "wx",
    });
  } catch {
    // one already there (a run beside this one wrote it) does the same
  }
}

/** The default store: `<dir>/<id>.jsonl`, each event appended as it happens, locked by a file. */
export function fileTranscripts(dir: string): TranscriptStore {
  return {
    open: (id, onError) => openTranscript(dir, id, onError),
    read: (id) => readSession(dir, id),
    lock: (id) => lockSession(dir, id),
    dir,
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
    makeSessionsDir(dir);
  } catch (e) {
    broken = true;
    onError(`cannot write the transcript ${file}: ${(e as Error).message}`);
  }
  return {
    file,
    get intact() {
      return !broken;
    },
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

export interface SessionRead {
  readonly events: RunEvent[];
  /** Lines that were not an event (cut off by a crash, or damaged): skipped. */
  readonly skipped: number;
  /** When the session was last written (ms since the epoch), where the store knows it. */
  readonly modifiedMs?: number;
}

/**
 * A session's events, read back. A line that is not an event is skipped and counted, so that a
 * transcript cut off by a crash (or damaged) still resumes. Contract: throws only SessionError.
 */
export function readSession(dir: string, id: string): SessionRead {
  const file = sessionFile(dir, id);
  let text: string;
  let modifiedMs: number | undefined;
  try {
    text = readFileSync(file, "utf8");
    modifiedMs = statSync(file).mtimeMs;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SessionError(
      code === "ENOENT"
        ? `no session '${id}' in ${dir}`
        : `cannot read the session ${file}: ${code ?? String(e)}`,
    );
  }
  const events: RunEvent[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const e = parseEvent(line);
    if (e) events.push(e);
    else skipped++;
  }
  return { events, skipped, ...(modifiedMs !== undefined && { modifiedMs }) };
}

/** The events of a session (lines that are not events skipped). */
export function readSessionEvents(dir: string, id: string): RunEvent[] {
  return readSession(dir, id).events;
}

/** A transcript line read back: an event, or undefined for one that is not (damaged, or not ours). */
export function parseEvent(line: string): RunEvent | undefined {
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v !== "object" || v === null) return undefined;
    const e = v as { type?: unknown; depth?: unknown };
    return typeof e.type === "string" && typeof e.depth === "number" ? (v as RunEvent) : undefined;
  } catch {
    return undefined;
  }
}

const STARTED_UNKNOWN =
  "This call was started, but agentmd stopped before it finished: its outcome is unknown. Check before doing it again.";
const NOT_RUN = "Interrupted: the session ended before this call was executed. The tool was not executed.";

/**
 * The main run's conversation, rebuilt from its events so that it can be sent again. A tool_use
 * whose result never made it into the transcript is answered for what is known: started (its
 * `tool_run` written: its outcome unknown) or never executed.
 */
export function conversationOf(all: readonly RunEvent[]): MessageParam[] {
  return rebuilt(liveEvents(all), false).messages;
}

/** A session to go on with: its conversation, and the calls of its last answer left to run. */
export interface Resumable {
  /**
   * The conversation; when `open` is set it ends with the model's last answer, whose calls
   * were not all run (the run was cut off after the answer was recorded, before its calls ran).
   */
  readonly messages: MessageParam[];
  /** The results known of that answer's calls (ended, or started with an unknown outcome); the others are to be run. */
  readonly open?: readonly ContentBlockParam[];
}

/**
 * A session's conversation to resume from. When the last thing recorded is the model's answer and
 * some of its calls never started (no `tool_run`), the answer is left open for the resumed run to
 * run those calls: asking the model again would ask for an answer it already gave. An answer cut
 * off by max_tokens or refused is not acted on, and is answered as never run.
 */
export function resumableOf(all: readonly RunEvent[]): Resumable {
  return rebuilt(liveEvents(all), true);
}

function rebuilt(events: readonly RunEvent[], leaveOpen: boolean): Resumable {
  const messages: MessageParam[] = [];
  let pending: string[] = [];
  let actedOn = false;
  const ran = new Set<string>();
  const ended = new Map<string, ContentBlockParam>();
  const known = (id: string) => ended.get(id) ?? (ran.has(id) ? unanswered(id, STARTED_UNKNOWN) : undefined);
  const settlePending = () => {
    if (pending.length === 0) return;
    messages.push({ role: "user", content: pending.map((id) => known(id) ?? unanswered(id, NOT_RUN)) });
    pending = [];
  };
  for (const e of events) {
    if (e.depth !== 0) continue;
    if (e.type === "tool_run") ran.add(e.id);
    else if (e.type === "tool_end")
      ended.set(e.id, {
        type: "tool_result",
        tool_use_id: e.id,
        content: e.content || "(no output)",
        ...(e.isError && { is_error: true }),
      });
    else if (e.type === "user_message") {
      settlePending();
      messages.push({ role: "user", content: e.content });
    } else if (e.type === "message_end" && e.content.length > 0) {
      settlePending();
      // A response after a pause_turn goes on the paused message, as the loop adds it.
      const last = messages.at(-1);
      if (last?.role === "assistant" && Array.isArray(last.content))
        messages[messages.length - 1] = { role: "assistant", content: [...last.content, ...e.content] };
      else messages.push({ role: "assistant", content: [...e.content] });
      pending = e.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
      actedOn = e.stopReason !== "max_tokens" && e.stopReason !== "refusal";
    } else if (e.type === "turn_end") {
      messages.push({ role: "user", content: [...e.toolResults] });
      pending = [];
    } else if (e.type === "compaction") {
      settlePending();
      const kept = e.kept > 0 ? messages.slice(-e.kept) : [];
      messages.splice(0, messages.length, summaryMessage(e.summary), ...kept);
    }
  }
  if (leaveOpen && actedOn && pending.some((id) => known(id) === undefined))
    return { messages, open: pending.flatMap((id) => known(id) ?? []) };
  settlePending();
  return { messages };
}

const unanswered = (id: string, content: string): ContentBlockParam => ({
  type: "tool_result",
  tool_use_id: id,
  content,
  is_error: true,
});

/**
 * A session's events as its conversation stands: a `rewind` event cuts what came after the top
 * run it names began (a rewind to a run not found, or found only in a part already cut, is ignored).
 */
export function liveEvents(events: readonly RunEvent[]): RunEvent[] {
  const live: RunEvent[] = [];
  for (const e of events) {
    if (e.type !== "rewind") {
      live.push(e);
      continue;
    }
    const at = live.findIndex((x) => x.type === "run_start" && x.depth === 0 && x.runId === e.to);
    if (at >= 0) live.splice(at);
  }
  return live;
}

/**
 * Holds a session for one run at a time: a second run writing it (`run -c` while the first still
 * runs, the same batch started twice) is refused with `SessionBusyError`, not interleaved. The lock
 * is a file made exclusively, naming the process (its id, start time and boot: an id alone is
 * reused, and a container's process 1 is process 1 again after a restart); one left by a process
 * that is gone is taken over; a folder that cannot be written is not locked. Returns the release. Throws SessionError.
 */
export function lockSession(dir: string, id: string): () => void {
  const lock = `${sessionFile(dir, id)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      makeSessionsDir(dir);
      writeFileSync(lock, identityText(ownIdentity()), { flag: "wx" });
      return () => rmSync(lock, { force: true });
    } catch (e) {
      // A folder that cannot be written holds no transcript either (that is a warning of the
      // run's): there is nothing to keep apart, so the run goes on unlocked.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return () => {};
      const holder = sessionHolder(dir, id);
      if (holder !== undefined)
        throw new SessionBusyError(
          `the session ${id} is in use by another agentmd (process ${holder}); wait for it to end, or start a new session`,
        );
      rmSync(lock, { force: true });
    }
  }
  throw new SessionError(`cannot lock the session ${id}`);
}

/** The live process whose run holds the session now (it is being written), or undefined. */
export function sessionHolder(dir: string, id: string): number | undefined {
  const holder = parseIdentity(readFileSafe(`${sessionFile(dir, id)}.lock`));
  return holder && isAlive(holder) ? holder.pid : undefined;
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
