import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { parseEvent } from "./transcript.js";

export interface SessionSummary {
  readonly id: string;
  readonly modified: Date;
  readonly prompt: string;
  readonly outcome?: string;
  readonly turns: number;
  /** What its runs cost, their subagents included (as their ends say). */
  readonly costUsd: number;
  /** Its last run has started and not ended: it runs now, or was cut off. */
  readonly open: boolean;
}

const SUFFIX = ".jsonl";
/** Beside the transcripts: what was read of each, so that a listing reads only what was added. */
const INDEX = ".summaries.json";
const CHUNK = 1 << 20;

/**
 * The session written last (by its file's time), or undefined: what `-c` continues. Reads no
 * transcript, only the folder and the files' times.
 */
export function newestSession(dir: string): string | undefined {
  let newest: { id: string; at: number } | undefined;
  for (const name of transcriptNames(dir)) {
    const at = mtimeOf(path.join(dir, name));
    if (at !== undefined && (newest === undefined || at > newest.at))
      newest = { id: name.slice(0, -SUFFIX.length), at };
  }
  return newest?.id;
}

/**
 * The sessions of a project, newest first. A transcript only grows (events are appended), so what
 * a listing needs of it (the first prompt, the sum of its runs' turns, the last outcome) is kept in
 * an index beside them with how far it was read: the next listing reads only what was appended
 * since, and a transcript that did not change is not opened. The index is a cache: one that is
 * missing, damaged or cannot be written costs a full read, never a wrong line.
 */
export function listSessions(dir: string): SessionSummary[] {
  return sessionLister(dir)();
}

/**
 * The sessions of a project, listed again and again (the view looks twice a second): what was read
 * is kept between looks, so a look stats the transcripts and reads only those whose size or time
 * changed, and the index is written only when an entry changed, never while nothing did.
 */
export function sessionLister(dir: string): () => SessionSummary[] {
  let known: Record<string, Entry> | undefined;
  return () => {
    const before = known ?? readIndex(dir);
    const next: Record<string, Entry> = {};
    const out: SessionSummary[] = [];
    let changed = false;
    for (const name of transcriptNames(dir)) {
      const id = name.slice(0, -SUFFIX.length);
      const file = path.join(dir, name);
      try {
        const st = statSync(file);
        const entry = summarise(file, st.size, st.mtimeMs, before[id]);
        changed ||= entry !== before[id];
        next[id] = entry;
        out.push(summaryOf(id, st.mtime, entry));
      } catch {
        // not a session file (gone meanwhile, or not readable)
      }
    }
    if (changed || Object.keys(before).some((id) => !Object.hasOwn(next, id))) writeIndex(dir, next);
    known = next;
    return out.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  };
}

function summaryOf(id: string, modified: Date, entry: Entry): SessionSummary {
  return {
    id,
    modified,
    prompt: entry.typed ?? entry.said ?? "",
    turns: entry.turns,
    costUsd: entry.costUsd,
    open: entry.open,
    ...(entry.outcome !== undefined && { outcome: entry.outcome }),
  };
}

/** What was read of one transcript, up to `offset` (the end of its last whole line). */
interface Entry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly offset: number;
  /** Its first top-level run was seen (its typed input, if any, is `typed`). */
  readonly started: boolean;
  readonly typed?: string;
  readonly said?: string;
  readonly turns: number;
  readonly outcome?: string;
  readonly costUsd: number;
  readonly open: boolean;
}

const EMPTY: Entry = { size: 0, mtimeMs: 0, offset: 0, started: false, turns: 0, costUsd: 0, open: false };

function summarise(file: string, size: number, mtimeMs: number, known: Entry | undefined): Entry {
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known;
  const from = known && grewFrom(file, known, size) ? known : EMPTY;
  let entry: Entry = { ...from, size, mtimeMs };
  const fd = openSync(file, "r");
  try {
    let at = from.offset;
    let offset = from.offset;
    let carry = Buffer.alloc(0);
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, at);
      if (n === 0) break;
      at += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      const cut = data.lastIndexOf(0x0a);
      if (cut >= 0) {
        for (const line of data.toString("utf8", 0, cut).split("\n")) entry = withLine(entry, line);
        offset += cut + 1;
      }
      carry = Buffer.from(data.subarray(cut + 1));
    }
    return { ...entry, offset };
  } finally {
    closeSync(fd);
  }
}

/** The transcript is the one indexed, grown since: the byte before the offset is still a line's end. */
function grewFrom(file: string, known: Entry, size: number): boolean {
  if (size < known.size) return false;
  if (known.offset === 0) return true;
  const fd = openSync(file, "r");
  try {
    const b = Buffer.alloc(1);
    return readSync(fd, b, 0, 1, known.offset - 1) === 1 && b[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** One line's part of the summary: only the lines that can change it are parsed. */
function withLine(entry: Entry, line: string): Entry {
  const end = line.includes('"type":"run_end"');
  const wanted = end || line.includes('"type":"run_start"') || entry.said === undefined;
  if (!wanted || line.trim() === "") return entry;
  const e = parseEvent(line);
  if (e?.depth !== 0) return entry;
  if (e.type === "run_end")
    return {
      ...entry,
      turns: entry.turns + e.turns,
      outcome: e.outcome,
      costUsd: entry.costUsd + e.costUsd,
      open: false,
    };
  if (e.type === "run_start" && entry.started) return { ...entry, open: true };
  if (e.type === "run_start")
    return { ...entry, started: true, open: true, ...(e.input !== undefined && { typed: e.input }) };
  if (e.type === "user_message" && entry.said === undefined)
    return { ...entry, said: typeof e.content === "string" ? e.content : "(blocks)" };
  return entry;
}

function transcriptNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith(SUFFIX));
  } catch {
    return [];
  }
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function readIndex(dir: string): Record<string, Entry> {
  try {
    const v: unknown = JSON.parse(readFileSync(path.join(dir, INDEX), "utf8"));
    const sessions = (v as { version?: unknown; sessions?: unknown }).sessions;
    if ((v as { version?: unknown }).version !== 1 || typeof sessions !== "object" || sessions === null)
      return {};
    const out: Record<string, Entry> = {};
    for (const [id, e] of Object.entries(sessions)) if (isEntry(e)) out[id] = e;
    return out;
  } catch {
    return {};
  }
}

function isEntry(v: unknown): v is Entry {
  const e = v as Record<string, unknown>;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.size === "number" &&
    typeof e.mtimeMs === "number" &&
    typeof e.offset === "number" &&
    e.offset <= e.size &&
    typeof e.started === "boolean" &&
    typeof e.turns === "number" &&
    typeof e.costUsd === "number" &&
    typeof e.open === "boolean" &&
    (e.typed === undefined || typeof e.typed === "string") &&
    (e.said === undefined || typeof e.said === "string") &&
    (e.outcome === undefined || typeof e.outcome === "string")
  );
}

/** Written whole under another name, then renamed: a reader sees the old index or the new one. */
function writeIndex(dir: string, sessions: Record<string, Entry>): void {
  const file = path.join(dir, INDEX);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify({ version: 1, sessions }));
    renameSync(temp, file);
  } catch {
    // a folder that cannot be written is read in full next time
  }
}
