import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { WriteError } from "./errors.js";
import { nodeCrypto } from "./node-builtins.js";
import { isAlive } from "./process-identity.js";
import { writeError } from "./write-whole.js";

/**
 * Runs `change` (a read-modify-write of `file`) while holding `<file>.lock`, so that two processes
 * changing the file at once both keep their change. The lock is a file made exclusively (O_EXCL),
 * holding its owner's host, process id and a token of its own. A lock is taken over when it is
 * stale: its process is gone (on this host), it names this very process but not this holding (a
 * restarted PID 1 in a container), or it is older than `staleMs` (a change takes milliseconds,
 * so an old lock's owner is stuck or gone whatever its id says). Taking over renames the lock
 * aside and checks it is the one judged, so two processes never both take over. Waits at most
 * `waitMs`, then throws `WriteError`; the folder must exist.
 */
export function withFileLock<T>(
  file: string,
  change: () => T,
  options: { readonly waitMs?: number; readonly staleMs?: number } = {},
): T {
  const lock = `${file}.lock`;
  const mine = JSON.stringify({ host: hostname(), pid: process.pid, token: nodeCrypto().randomUUID() });
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (let attempt = 0; ; attempt++) {
    if (tryLock(lock, mine, file)) break;
    const held = readHolder(lock);
    if (held && isStale(held, options.staleMs ?? 30_000)) {
      takeOver(lock, held.text);
      continue;
    }
    if (Date.now() > deadline)
      throw new WriteError(
        `cannot change ${file}: another agentmd holds its lock ${lock}${held?.pid ? ` (process ${held.pid})` : ""} for over ${Math.round((options.waitMs ?? 10_000) / 1000)} s; it is left as it was`,
      );
    pause(Math.min(50, 2 + attempt * 3) + Math.random() * 5);
  }
  try {
    return change();
  } finally {
    if (readHolder(lock)?.text === mine) rmSync(lock, { force: true });
  }
}

function tryLock(lock: string, mine: string, file: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw writeError(e, file);
  }
  try {
    writeSync(fd, mine);
  } catch (e) {
    closeSync(fd);
    rmSync(lock, { force: true });
    throw writeError(e, file);
  }
  closeSync(fd);
  return true;
}

interface Holder {
  readonly text: string;
  readonly ageMs: number;
  readonly host?: string;
  readonly pid?: number;
}

function readHolder(lock: string): Holder | undefined {
  try {
    const ageMs = Date.now() - statSync(lock).mtimeMs;
    const text = readFileSync(lock, "utf8");
    try {
      const v = JSON.parse(text) as { host?: unknown; pid?: unknown };
      return {
        text,
        ageMs,
        ...(typeof v.host === "string" && { host: v.host }),
        ...(Number.isInteger(v.pid) && { pid: v.pid as number }),
      };
    } catch {
      return { text, ageMs };
    }
  } catch {
    return undefined;
  }
}

/** A lock whose owner cannot be holding it any more; one just made (still empty) is not. */
export function isStale(held: Holder, staleMs: number): boolean {
  if (held.ageMs > staleMs) return true;
  if (held.pid === undefined || held.host !== hostname()) return false;
  return held.pid === process.pid || !isAlive({ pid: held.pid });
}

/** Renames the stale lock aside; when what was renamed is not what was judged, puts it back. */
function takeOver(lock: string, judged: string): void {
  const aside = `${lock}.${nodeCrypto().randomUUID()}.stale`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // another process took it over first
  }
  try {
    if (readFileSync(aside, "utf8") !== judged) linkSync(aside, lock);
  } catch {
    // A third process made a new lock meanwhile: that one holds it.
  } finally {
    rmSync(aside, { force: true });
  }
}

const waitCell = new Int32Array(new SharedArrayBuffer(4));
/** A short synchronous pause between attempts (a change under the lock takes milliseconds). */
function pause(ms: number): void {
  Atomics.wait(waitCell, 0, 0, ms);
}
