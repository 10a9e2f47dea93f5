import {
  appendFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { CHECKPOINT_FILE_MAX_BYTES, CHECKPOINT_SESSION_MAX_BYTES } from "../shared/defaults.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import { realPathOf } from "../tools/real-path.js";
import { checkSessionId } from "./transcript.js";

/** The tools whose changes a checkpoint keeps: what Bash changes is not among them. */
export const CHECKPOINTED_TOOLS: ReadonlySet<string> = new Set([
  "Write",
  "Edit",
  "MultiEdit",
  "NotebookEdit",
]);

/**
 * One line of a session's checkpoint log (`<id>.checkpoints/log.jsonl`), in the order things
 * happened, each naming the top run (the prompt's turn) it belongs to: a file as it was
 * before the turn first changed it (`before`: its content's hash, null when it did not exist, and
 * the real path it led to); a file as a change (or a rewind) left it (`after`); a file too large
 * to keep (`untracked`); the turn ran Bash (`bash`).
 */
export type CheckpointLine =
  | {
      readonly t: "before";
      readonly turn: string;
      readonly file: string;
      readonly hash: string | null;
      readonly real: string;
    }
  | { readonly t: "after"; readonly turn: string; readonly file: string; readonly hash: string | null }
  | { readonly t: "untracked"; readonly turn: string; readonly file: string; readonly why: string }
  | { readonly t: "bash"; readonly turn: string };

/** What a run's calls tell the checkpoints of the turn they belong to (a subagent's: its top run's). */
export interface TurnCheckpoint {
  /** Before a call that may change `file` (absolute): its content is kept, once per turn. */
  before(file: string): void;
  /** After that call: what it left. */
  after(file: string): void;
  /** The turn ran Bash: what that changed is not kept. */
  ranBash(): void;
}

/** Where a session's checkpoints are kept: beside its transcript, removed with it. */
export function checkpointsDir(sessionsDir: string, id: string): string {
  return path.join(sessionsDir, `${checkSessionId(id)}.checkpoints`);
}

const LOG = "log.jsonl";
const BLOBS = "blobs";

export const hashOf = (bytes: Uint8Array): string =>
  nodeCrypto().createHash("sha256").update(bytes).digest("hex");

/** A file's bytes now, null when there is none (or it is not a file). */
export function contentOf(file: string): Buffer | null {
  try {
    return lstatSync(file).isFile() ? readFileSync(file) : null;
  } catch {
    return null;
  }
}

/**
 * The checkpoints of one top run (one prompt) of a session: `begin(runId)` when its run starts,
 * then each change through the `TurnCheckpoint`; the folder is made at the first change (a session
 * that changes no file has none). Never throws: a folder that cannot be written says so once
 * through `onError`, and the run goes on unchecked.
 */
export function openTurnCheckpoints(
  dir: string,
  onError: (message: string) => void,
): TurnCheckpoint & { begin(runId: string): void } {
  let turn: string | undefined;
  let broken = false;
  const seen = new Set<string>();
  let used: number | undefined;
  const write = (line: CheckpointLine) => {
    if (broken) return;
    try {
      mkdirSync(path.join(dir, BLOBS), { recursive: true });
      appendFileSync(path.join(dir, LOG), `${JSON.stringify(line)}\n`);
    } catch (e) {
      broken = true;
      onError(`cannot keep the checkpoints of this session in ${dir}: ${(e as Error).message}`);
    }
  };
  const keep = (bytes: Buffer): string | undefined => {
    if (bytes.length > CHECKPOINT_FILE_MAX_BYTES)
      return `larger than ${CHECKPOINT_FILE_MAX_BYTES / (1024 * 1024)} MiB`;
    used ??= blobBytes(dir);
    const hash = hashOf(bytes);
    const blob = path.join(dir, BLOBS, hash);
    if (existsSync(blob)) return undefined;
    if (used + bytes.length > CHECKPOINT_SESSION_MAX_BYTES)
      return `the session's checkpoints hold ${CHECKPOINT_SESSION_MAX_BYTES / (1024 * 1024)} MiB already`;
    try {
      mkdirSync(path.dirname(blob), { recursive: true });
      writeFileSync(blob, bytes);
      used += bytes.length;
      return undefined;
    } catch (e) {
      return `cannot be kept: ${(e as Error).message}`;
    }
  };
  return {
    begin(runId) {
      turn ??= runId;
    },
    before(file) {
      if (turn === undefined || broken || seen.has(file)) return;
      seen.add(file);
      const bytes = contentOf(file);
      const why = bytes ? keep(bytes) : undefined;
      if (why !== undefined) write({ t: "untracked", turn, file, why });
      else write({ t: "before", turn, file, hash: bytes ? hashOf(bytes) : null, real: realPathOf(file) });
    },
    after(file) {
      if (turn === undefined || broken) return;
      const bytes = contentOf(file);
      write({ t: "after", turn, file, hash: bytes ? hashOf(bytes) : null });
    },
    ranBash() {
      if (turn !== undefined) write({ t: "bash", turn });
    },
  };
}

function blobBytes(dir: string): number {
  let total = 0;
  try {
    for (const name of readdirSync(path.join(dir, BLOBS)))
      total += statSync(path.join(dir, BLOBS, name)).size;
  } catch {
    // none yet
  }
  return total;
}

/** A session's checkpoint log, read back (lines that are not one skipped); empty when it has none. */
export function readCheckpoints(dir: string): CheckpointLine[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, LOG), "utf8");
  } catch {
    return [];
  }
  const out: CheckpointLine[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as CheckpointLine;
      if (typeof v === "object" && v !== null && typeof v.t === "string" && typeof v.turn === "string")
        out.push(v);
    } catch {
      // a line cut off by a crash
    }
  }
  return out;
}

/** Appends lines to a session's checkpoint log (a rewind's `after` lines). Throws on failure. */
export function appendCheckpoints(dir: string, lines: readonly CheckpointLine[]): void {
  if (lines.length === 0) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, LOG), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

/** A kept content by its hash, or undefined when it is missing. */
export function blobOf(dir: string, hash: string): Buffer | undefined {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  try {
    return readFileSync(path.join(dir, BLOBS, hash));
  } catch {
    return undefined;
  }
}

/** `--fork-session`: the new session starts with the old one's checkpoints (when it has any). */
export function copyCheckpoints(sessionsDir: string, from: string, to: string): void {
  const source = checkpointsDir(sessionsDir, from);
  if (existsSync(source)) cpSync(source, checkpointsDir(sessionsDir, to), { recursive: true });
}

/** Removes a session's checkpoints (with the session). */
export function removeCheckpoints(sessionsDir: string, id: string): void {
  rmSync(checkpointsDir(sessionsDir, id), { recursive: true, force: true });
}

/**
 * A call about to run, as the turn's checkpoints see it: an editing tool's file is kept now, and
 * `after()` notes what the call left; a Bash call is noted. Undefined for any other call.
 */
export function checkpointCall(
  turn: TurnCheckpoint | undefined,
  tool: string,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): { after(): void } | undefined {
  if (!turn) return undefined;
  if (tool === "Bash") turn.ranBash();
  if (!CHECKPOINTED_TOOLS.has(tool)) return undefined;
  const given = tool === "NotebookEdit" ? input.notebook_path : input.file_path;
  if (typeof given !== "string" || given === "") return undefined;
  const file = path.resolve(cwd, given);
  turn.before(file);
  return { after: () => turn.after(file) };
}
