import { isUtf8 } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";

export type Spawn = (command: string, args: string[], options: Parameters<typeof spawn>[2]) => ChildProcess;

/** After SIGTERM, how long a process group gets before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long its output may still arrive (a child it left can hold the pipes). */
const DRAIN_CAP_MS = 250;

/** Variables a command never sees: the model's own credentials. */
export const HIDDEN_ENV = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

export interface ShellOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why it was stopped, if it was. */
  readonly stopped?: "timeout" | "aborted";
  readonly error?: Error;
  /** stdout and stderr together, in the order they came. */
  readonly output: CollectedOutput;
}

export interface ShellOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Absent: no time limit (a background command runs until it is killed). */
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
  /** Where the output goes, read while the command runs (a background command's); default: a new one. */
  readonly output?: CollectedOutput;
  readonly maxChars: number;
  readonly spawn?: Spawn;
  /** Each piece of output as it comes (for a progress display). */
  readonly onOutput?: (text: string) => void;
}

/**
 * Runs `bash -c command` in its own process group and settles when its output is complete: the
 * shell has exited and its pipes have closed (or, when something it left behind holds them open,
 * shortly after the exit). Whatever it left running in its group is then ended. A timeout or an
 * abort kills the whole group. Every timer that can settle this promise keeps the process alive, so
 * it settles. Contract: never rejects.
 */
export function runShell(command: string, o: ShellOptions): Promise<ShellOutcome> {
  const env: Record<string, string | undefined> = { ...o.env };
  for (const k of HIDDEN_ENV) delete env[k];
  const output = o.output ?? collectOutput(o.maxChars);
  let child: ChildProcess;
  try {
    child = (o.spawn ?? (spawn as Spawn))("bash", ["-c", command], {
      cwd: o.cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    return Promise.resolve({ code: null, signal: null, error: e as Error, output });
  }
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);
  child.stdout?.on("data", output.add);
  child.stderr?.on("data", output.add);
  if (o.onOutput) {
    const tell = o.onOutput;
    const text = (chunk: Buffer | string) => tell(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
    child.stdout?.on("data", text);
    child.stderr?.on("data", text);
  }
  return new Promise((resolve) => {
    let stopped: ShellOutcome["stopped"];
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let cap: NodeJS.Timeout | undefined;
    const stop = (why: "timeout" | "aborted") => {
      stopped ??= why;
      killGroup(pid);
    };
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => stop("timeout"), o.timeoutMs);
    const onAbort = () => stop("aborted");
    o.signal.addEventListener("abort", onAbort, { once: true });
    const settle = (error?: Error) => {
      clearTimeout(timer);
      clearTimeout(cap);
      o.signal.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      // What the command left running in its group ends with it (run_in_background is the way to keep a process).
      killGroup(pid);
      resolve({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        output,
        ...(stopped && { stopped }),
        ...(error && { error }),
      });
    };
    child.once("error", (e) => settle(e));
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      cap = setTimeout(() => settle(), DRAIN_CAP_MS);
    });
    child.once("close", () => settle());
  });
}

/** Process groups of commands still running, in this process: killed if the process goes away. */
const liveGroups = new Set<number>();

/**
 * SIGKILL to every command group still running. For the CLI's exit paths (a second Ctrl-C,
 * SIGTERM, SIGHUP): a command must not outlive the agent that started it. Synchronous.
 */
export function killLiveProcessGroups(): void {
  for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
  liveGroups.clear();
}

/** SIGTERM to the whole process group, SIGKILL after a grace period if anything is left. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined || !liveGroups.has(pid)) return;
  if (!signalGroup(pid, "SIGTERM")) {
    liveGroups.delete(pid);
    return;
  }
  setTimeout(() => {
    signalGroup(pid, "SIGKILL");
    liveGroups.delete(pid);
  }, KILL_GRACE_MS).unref();
}

function signalGroup(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

export interface CollectedOutput {
  add(chunk: Buffer): void;
  /** The output as text, cut with a note; binary output is summarised. */
  text(): string;
  /**
   * The output since the last `take`, as `text()` shows it, and a fresh start: what comes next is
   * kept (and cut) anew. A character split across the boundary is kept whole for the next take.
   */
  take(): string;
  /** The last complete line so far (for progress). */
  lastLine(): string;
}

/**
 * Keeps the first bytes of a stream of chunks (enough for `maxChars` characters) and counts the
 * rest. Output that is not text (a NUL byte, or not UTF-8) is summarised as `[binary output, N bytes]`.
 */
export function collectOutput(maxChars: number): CollectedOutput {
  const maxBytes = maxChars * 4;
  let chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  let tail = "";
  const add = (chunk: Buffer) => {
    total += chunk.length;
    if (kept >= maxBytes) return;
    const room = maxBytes - kept;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    kept += Math.min(room, chunk.length);
  };
  return {
    add(chunk) {
      const s = chunk.toString("utf8", 0, Math.min(chunk.length, 4096));
      const lines = `${tail}${s}`.split("\n");
      tail = lines.length > 1 ? (lines.at(-2) ?? "") : (lines[0] ?? "").slice(-200);
      add(chunk);
    },
    text: () => render(Buffer.concat(chunks), kept, total, maxChars),
    take() {
      const bytes = Buffer.concat(chunks);
      const carry = kept === total ? incompleteEnd(bytes) : 0;
      const shown = render(bytes.subarray(0, bytes.length - carry), kept - carry, total - carry, maxChars);
      chunks = [];
      kept = 0;
      total = 0;
      if (carry > 0) add(bytes.subarray(bytes.length - carry));
      return shown;
    },
    lastLine: () => tail,
  };
}

/** Kept bytes as text, with a note when more came than was kept. */
function render(bytes: Buffer, kept: number, total: number, maxChars: number): string {
  if (isBinary(bytes, kept < total)) return `[binary output, ${total} bytes]`;
  const s = bytes.toString("utf8");
  if (s.length <= maxChars && kept === total) return s;
  const shown = s.slice(0, maxChars);
  return `${shown}\n[output cut at ${maxChars} characters; ${total - Buffer.byteLength(shown)} more bytes not shown]`;
}

/** How many bytes at the end begin a UTF-8 character that has not arrived whole (0 to 3). */
function incompleteEnd(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] as number;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

function isBinary(bytes: Buffer, cut: boolean): boolean {
  if (bytes.subarray(0, 8192).includes(0)) return true;
  if (isUtf8(bytes)) return false;
  // A cut can split a character: allow up to three stray bytes at the end.
  if (!cut) return true;
  for (let drop = 1; drop <= 3 && drop < bytes.length; drop++)
    if (isUtf8(bytes.subarray(0, bytes.length - drop))) return false;
  return true;
}
