import { lstatSync, rmSync } from "node:fs";
import { writeFileWhole } from "../shared/write-whole.js";
import { realPathOf } from "../tools/real-path.js";
import { appendCheckpoints, blobOf, type CheckpointLine, contentOf, hashOf } from "./checkpoints.js";

/** Why a file was not put back: changed outside agentmd, not allowed, a link now, or not kept. */
export type SkipReason = "conflict" | "denied" | "link" | "not-kept";

export interface FileRewind {
  /** Files written back as they were. */
  readonly restored: readonly string[];
  /** Files the turns created, removed. */
  readonly removed: readonly string[];
  /** Files left as they are, and why. */
  readonly skipped: readonly { readonly file: string; readonly reason: SkipReason; readonly why: string }[];
  /** The top runs at or after the turn that ran Bash: what they changed is not covered. */
  readonly bashTurns: readonly string[];
  readonly insertions: number;
  readonly deletions: number;
}

export interface RewindFilesOptions {
  /** Put back a file changed outside agentmd since its checkpoint too. */
  readonly force?: boolean;
  /** Say what would be done, and do nothing. */
  readonly dryRun?: boolean;
  /** Why the session may not write `file` now (its Write would be denied), or undefined. */
  readonly mayWrite: (file: string) => string | undefined;
}

/**
 * Puts every file the `turns` changed (a top run's and every later one's, as the session ran them)
 * back as it was just before the first of them began: a file that did not exist is removed.
 * A file whose content is not what agentmd last left is a conflict, skipped unless `force`; one the
 * session could not write now, or whose path is now a link or leads elsewhere than it did, is
 * skipped and said. What is put back is noted in the log, so a later rewind knows it.
 */
export function rewindFiles(
  dir: string,
  lines: readonly CheckpointLine[],
  turns: ReadonlySet<string>,
  options: RewindFilesOptions,
): FileRewind {
  const later = lines.filter((l) => turns.has(l.turn));
  const targets = new Map<string, { hash: string | null; real: string }>();
  const skipped: { file: string; reason: SkipReason; why: string }[] = [];
  for (const l of later) {
    if (l.t === "before" && !targets.has(l.file)) targets.set(l.file, { hash: l.hash, real: l.real });
    if (l.t === "untracked" && !targets.has(l.file))
      skipped.push({ file: l.file, reason: "not-kept", why: `not kept in the checkpoint (${l.why})` });
  }
  const bashTurns = [...new Set(later.filter((l) => l.t === "bash").map((l) => l.turn))];
  const restored: string[] = [];
  const removed: string[] = [];
  const noted: CheckpointLine[] = [];
  let insertions = 0;
  let deletions = 0;
  for (const [file, target] of targets) {
    const now = contentOf(file);
    const nowHash = now ? hashOf(now) : null;
    if (nowHash === target.hash && !isLink(file)) continue;
    const why = refusal(dir, file, target, nowHash, lastKnown(lines, file), options);
    if (why) {
      skipped.push({ file, ...why });
      continue;
    }
    const bytes = target.hash === null ? null : (blobOf(dir, target.hash) as Buffer);
    const counted = lineChanges(now, bytes);
    insertions += counted.insertions;
    deletions += counted.deletions;
    if (!options.dryRun) {
      try {
        if (bytes === null) rmSync(file, { force: true });
        else writeFileWhole(file, bytes);
      } catch (e) {
        skipped.push({ file, reason: "denied", why: `could not be written: ${(e as Error).message}` });
        continue;
      }
      noted.push({ t: "after", turn: "rewind", file, hash: target.hash });
    }
    (bytes === null ? removed : restored).push(file);
  }
  if (!options.dryRun) appendCheckpoints(dir, noted);
  return { restored, removed, skipped, bashTurns, insertions, deletions };
}

/** Why `file` is not put back, or undefined: it may be. */
function refusal(
  dir: string,
  file: string,
  target: { hash: string | null; real: string },
  nowHash: string | null,
  known: string | null | undefined,
  options: RewindFilesOptions,
): { reason: SkipReason; why: string } | undefined {
  if (isLink(file)) return { reason: "link", why: "is a symbolic link now: nothing is written through it" };
  const real = realPathOf(file);
  if (real !== target.real)
    return { reason: "link", why: `now leads to ${real} (a symbolic link): nothing is written there` };
  if (nowHash !== known && !options.force)
    return {
      reason: "conflict",
      why: "changed outside agentmd since its checkpoint (--force puts it back anyway)",
    };
  const denied = options.mayWrite(file);
  if (denied !== undefined) return { reason: "denied", why: denied };
  if (target.hash !== null && blobOf(dir, target.hash) === undefined)
    return { reason: "not-kept", why: "its checkpoint's copy is missing" };
  return undefined;
}

/** The content agentmd last saw the file with (what its last change, or rewind, left). */
function lastKnown(lines: readonly CheckpointLine[], file: string): string | null | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i] as CheckpointLine;
    if ((l.t === "after" || l.t === "before") && l.file === file) return l.hash;
  }
  return undefined;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Lines added and taken away by putting `to` where `from` is (as a count of lines, not a diff). */
function lineChanges(from: Buffer | null, to: Buffer | null): { insertions: number; deletions: number } {
  const count = (b: Buffer | null) => {
    const m = new Map<string, number>();
    for (const line of b ? b.toString("utf8").split("\n") : []) m.set(line, (m.get(line) ?? 0) + 1);
    return m;
  };
  const a = count(from);
  const b = count(to);
  let insertions = 0;
  let deletions = 0;
  for (const [line, n] of b) insertions += Math.max(0, n - (a.get(line) ?? 0));
  for (const [line, n] of a) deletions += Math.max(0, n - (b.get(line) ?? 0));
  return { insertions, deletions };
}
