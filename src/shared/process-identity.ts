import { readFileSync } from "node:fs";

/**
 * Who a process is, beyond its id: an id alone names whoever has it now. A container's `batch`
 * is process 1 every time it starts, and ids are reused; the id with the process's start time (the
 * kernel's, in clock ticks since boot: field 22 of /proc/PID/stat) and the machine's boot id names
 * one process, once. Where /proc is not there (not Linux), the id is all there is.
 */
export interface ProcessIdentity {
  readonly pid: number;
  /** The start time as /proc/PID/stat says it; absent where it cannot be read. */
  readonly started?: string;
  /** The boot it started in (/proc/sys/kernel/random/boot_id); absent where it cannot be read. */
  readonly boot?: string;
}

/** This process, as a lock names it. */
export function ownIdentity(): ProcessIdentity {
  return identityOf(process.pid);
}

/** The process that has `pid` now (its start time and boot, where they can be read). */
export function identityOf(pid: number): ProcessIdentity {
  const started = startTimeOf(pid);
  const boot = bootId();
  return { pid, ...(started !== undefined && { started }), ...(boot !== undefined && { boot }) };
}

/** The identity as a lock file holds it: one JSON line. */
export function identityText(id: ProcessIdentity): string {
  return JSON.stringify(id);
}

/**
 * An identity read back from a lock: JSON as `identityText` writes it, or a bare process id (a lock
 * written before the start time was kept). Undefined for anything else.
 */
export function parseIdentity(text: string): ProcessIdentity | undefined {
  const bare = Number(text.trim());
  if (Number.isInteger(bare) && bare > 0) return { pid: bare };
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) return undefined;
    const str = (x: unknown) => (typeof x === "string" && x !== "" ? x : undefined);
    const started = str(v.started);
    const boot = str(v.boot);
    return { pid: v.pid as number, ...(started && { started }), ...(boot && { boot }) };
  } catch {
    return undefined;
  }
}

/**
 * Whether the process an identity names is still running: its id is taken by a live process, and
 * that process started when the identity says, in the same boot. A process 1 restarted in its
 * container, or an id given to another process since, is not the one named.
 */
export function isAlive(id: ProcessIdentity): boolean {
  if (!pidTaken(id.pid)) return false;
  const now = identityOf(id.pid);
  if (id.boot !== undefined && now.boot !== undefined && id.boot !== now.boot) return false;
  if (id.started !== undefined && now.started !== undefined && id.started !== now.started) return false;
  return true;
}

function pidTaken(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Field 22 of /proc/PID/stat, counted after the command's name (which may hold spaces and ')'). */
function startTimeOf(pid: number): string | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 3 on are here from index 0: field 22 is at 19.
  const started = fields[19];
  return started && /^\d+$/.test(started) ? started : undefined;
}

let boot: string | undefined | null = null;
function bootId(): string | undefined {
  if (boot === null) boot = readOr("/proc/sys/kernel/random/boot_id").trim() || undefined;
  return boot;
}

function readOr(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
