import type { ChildProcess, SpawnOptions } from "node:child_process";
import { type CollectedOutput, collectOutput } from "./collect-output.js";
import { childProcess } from "./node-builtins.js";
import { OWN_SECRETS } from "./own-secrets.js";

/** How a process is started (`child_process.spawn`'s shape; the sandbox wraps it). */
export type SpawnProcess = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

/** After SIGTERM, how long a process group gets before SIGKILL. */
export const KILL_GRACE_MS = 500;
/** After the process exits, how long its output may still arrive (a child it left can hold the pipes). */
const DRAIN_CAP_MS = 250;

export interface ProcessOptions {
  readonly cwd?: string;
  /** Default: this process's environment. agentmd's own credentials are taken out either way. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The run's signal: its abort ends the process group. */
  readonly signal?: AbortSignal;
  /** Absent: no time limit (a background command runs until it is stopped). */
  readonly timeoutMs?: number;
  /** Written to standard input, which is then closed; absent: standard input is empty. */
  readonly input?: string;
  /** The output cap, in characters, of each stream (or of both, when they share a collector). */
  readonly maxChars: number;
  /** Where stdout goes (read while it runs, if the caller likes); default: a collector of its own. */
  readonly stdout?: CollectedOutput;
  /** Where stderr goes; pass the stdout collector to keep both in the order they came. */
  readonly stderr?: CollectedOutput;
  /** Each piece of output as it comes (for a progress display). */
  readonly onOutput?: (text: string) => void;
  readonly spawn?: SpawnProcess;
}

/** How a process ended. */
export type ProcessEnd =
  | { readonly kind: "exited"; readonly code: number }
  | { readonly kind: "signalled"; readonly signal: NodeJS.Signals }
  | { readonly kind: "timed-out" }
  | { readonly kind: "aborted" }
  /** It never ran: the program is missing, or the spawn (a sandbox that cannot be set up) refused. */
  | { readonly kind: "not-started"; readonly message: string };

export type ProcessResult = ProcessEnd & {
  readonly stdout: CollectedOutput;
  readonly stderr: CollectedOutput;
  /** More output came than the cap keeps. */
  readonly truncated: boolean;
};

/**
 * The one way agentmd starts a process (Bash, background shells, hooks, the sandbox's probe): in a
 * process group of its own, so that a stop reaches everything it started. A timeout or the
 * signal's abort sends SIGTERM to the group and SIGKILL `KILL_GRACE_MS` later. It settles when the
 * output is complete: the process has exited and its pipes have closed (or, when something it left
 * behind holds them, shortly after the exit); whatever it left in its group is then ended too.
 * Contract: never rejects, and settles within the grace (plus the drain cap) of a stop.
 */
export function runProcess(file: string, args: readonly string[], o: ProcessOptions): Promise<ProcessResult> {
  const stdout = o.stdout ?? collectOutput(o.maxChars);
  const stderr = o.stderr ?? collectOutput(o.maxChars);
  const done = (end: ProcessEnd): ProcessResult => ({
    ...end,
    stdout,
    stderr,
    truncated: stdout.truncated() || stderr.truncated(),
  });
  if (o.signal?.aborted) return Promise.resolve(done({ kind: "aborted" }));
  let child: ChildProcess;
  try {
    child = (o.spawn ?? childProcess().spawn)(file, [...args], {
      ...(o.cwd !== undefined && { cwd: o.cwd }),
      env: visibleEnv(o.env ?? process.env),
      detached: true,
      stdio: [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
  } catch (e) {
    return Promise.resolve(done({ kind: "not-started", message: (e as Error).message }));
  }
  // A start that learns its pid later (a command the shell helper starts) says so with `spawn`.
  const register = () => {
    if (child.pid !== undefined && !liveGroups.has(child.pid)) liveGroups.set(child.pid, undefined);
  };
  register();
  child.once("spawn", register);
  listen(child, stdout, stderr, o.onOutput);
  if (o.input !== undefined) {
    child.stdin?.on("error", () => {});
    child.stdin?.end(o.input);
  }
  return watch(child, o).then(done);
}

function visibleEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const k of OWN_SECRETS) delete out[k];
  return out;
}

function listen(
  child: ChildProcess,
  stdout: CollectedOutput,
  stderr: CollectedOutput,
  onOutput: ((text: string) => void) | undefined,
): void {
  child.stdout?.on("data", stdout.add);
  child.stderr?.on("data", stderr.add);
  if (!onOutput) return;
  const text = (chunk: Buffer) => onOutput(chunk.toString("utf8"));
  child.stdout?.on("data", text);
  child.stderr?.on("data", text);
}

/** How the process ends. Every timer that can settle it keeps this process alive, so it settles. */
function watch(child: ChildProcess, o: ProcessOptions): Promise<ProcessEnd> {
  return new Promise((resolve) => {
    let stopped: "timed-out" | "aborted" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let cap: NodeJS.Timeout | undefined;
    const stop = (why: "timed-out" | "aborted") => {
      stopped ??= why;
      // A process with no group here (an editor's terminal, a start not yet known) is asked to end itself.
      if (child.pid === undefined) child.kill("SIGTERM");
      else endGroup(child.pid);
    };
    // A stop that came before the start was known reaches the whole group once it is.
    child.once("spawn", () => {
      if (stopped) endGroup(child.pid);
    });
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => stop("timed-out"), o.timeoutMs);
    const onAbort = () => stop("aborted");
    o.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = (error?: Error) => {
      clearTimeout(timer);
      clearTimeout(cap);
      o.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      // What the process left running in its group ends with it (a background shell is the way to keep one).
      endGroup(child.pid);
      if (error && exit === undefined) resolve({ kind: "not-started", message: error.message });
      else if (stopped) resolve({ kind: stopped });
      else if (exit?.code !== null && exit?.code !== undefined) resolve({ kind: "exited", code: exit.code });
      else resolve({ kind: "signalled", signal: exit?.signal ?? "SIGKILL" });
    };
    child.once("error", (e) => settle(e));
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      cap = setTimeout(() => settle(), DRAIN_CAP_MS);
    });
    child.once("close", () => settle());
  });
}

/** Process groups still running (or being ended), with the SIGKILL that is on its way to each. */
const liveGroups = new Map<number, NodeJS.Timeout | undefined>();

/**
 * SIGKILL to every group still running. For the CLI's exit paths (a second Ctrl-C, SIGTERM,
 * SIGHUP, the end of the process): nothing agentmd started outlives it. Synchronous.
 */
export function killLiveProcessGroups(): void {
  for (const [pid, timer] of liveGroups) {
    clearTimeout(timer);
    signalGroup(pid, "SIGKILL");
  }
  liveGroups.clear();
}

/** SIGTERM to the whole group, SIGKILL after the grace if anything is left. Once per group. */
function endGroup(pid: number | undefined): void {
  if (pid === undefined || !liveGroups.has(pid) || liveGroups.get(pid) !== undefined) return;
  if (!signalGroup(pid, "SIGTERM")) {
    liveGroups.delete(pid);
    return;
  }
  const kill = setTimeout(() => {
    signalGroup(pid, "SIGKILL");
    liveGroups.delete(pid);
  }, KILL_GRACE_MS);
  // A group left behind by a settled process must not keep agentmd alive: the exit path kills it.
  kill.unref();
  liveGroups.set(pid, kill);
}

function signalGroup(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}
