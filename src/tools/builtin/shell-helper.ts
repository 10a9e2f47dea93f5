import type { ChildProcess } from "node:child_process";
import type { Server, Socket } from "node:net";
import { isAbsolute } from "node:path";
import { createInterface } from "node:readline";
import { childProcess, nodeNet } from "../../shared/node-builtins.js";
import type { SpawnProcess } from "../../shared/run-process.js";
import { HelperChild } from "./shell-helper-child.js";
import { encodeRequest, HELPER_OWN, helperScript, shellLevelAfterStart } from "./shell-helper-script.js";

export { helperCanRun } from "./shell-helper-script.js";

/**
 * Bash's commands, run by a small long-lived bash rather than each started by agentmd itself.
 *
 * Why: on Linux a process is started by fork(), which copies the parent's page tables and leaves
 * every page of the parent's memory to be copied on its next write. agentmd holds tens of MB (the
 * heap, the bash grammar), so each command cost it ~6 ms in fork and ~3 ms in faults after, and a
 * new bash ~4 ms more to start (measured on a 2-core VM: 50 one-line Bash turns 17 ms each against
 * 6 ms for Read; through the helper, 10 ms).
 *
 * The helper keeps one subshell forked ahead. Each command is read by that subshell, which enters
 * the folder, connects back to agentmd, and runs the command as `bash -c` would: from a bash that
 * started in the same environment, in a process group of its own (so a stop still ends the whole
 * group), standard input empty, stdout and stderr in the order they are written to a loopback socket
 * (which presents a one-time token before any output). What bash -c sets at its start is set as it
 * would be: `$BASH_EXECUTION_STRING`, `$SHLVL`, `$PWD`, `$OLDPWD`, `$BASH_SUBSHELL`, line numbers.
 *
 * A command goes to a direct start, as before, when the helper could not run it as `bash -c` does:
 * a line bash cannot parse (its message names `-c`), one that reads `$$` (the helper's process, not
 * the command's), `$!` (its last subshell) or `$SECONDS` (its age), one with `set -u` or `${x?}` (a
 * subshell ends 1 where bash -c ends 127), an environment with what bash reads at its own
 * start-up (`BASH_ENV`, `SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`, exported functions, a `SHLVL`
 * bash would warn about or read otherwise), a very long command or one with a NUL, while
 * the helper is busy or not started yet (it starts on first use: the first command never waits for
 * it), off Linux, in a sandbox, in the background, and with `AGENTMD_SHELL_HELPER=off`. A helper
 * that cannot connect back or dies is replaced; after three such ends, none is started any more.
 *
 * What differs: a command killed by a signal reads as exit code 128+N (bash's `wait` cannot tell
 * them apart), where a direct start says which signal; a command that sends itself SIGTSTP, SIGTTIN
 * or SIGTTOU stops (its group has a parent in the helper's session), where a direct start (a session
 * of its own: an orphaned group) goes on; and `ps` shows the helper's command line.
 */
export const shellSpawn: SpawnProcess = (file, args, options) => {
  const direct = () => childProcess().spawn(file, args, options);
  const command = args[1];
  const env = options.env ?? process.env;
  const usable =
    file === "bash" &&
    args.length === 2 &&
    args[0] === "-c" &&
    command !== undefined &&
    options.detached === true &&
    typeof options.cwd === "string" &&
    isAbsolute(options.cwd) &&
    helpersWanted(env);
  if (!usable) return direct();
  const helper = helperFor(env);
  const request = helper?.ready && !helper.busy ? encodeRequest(options.cwd as string, command) : undefined;
  if (!helper || request === undefined) return direct();
  return helper.run(request, direct);
};

/** Bash reads these at its own start-up; a command in an environment with one is started directly. */
const READ_AT_START = new Set(["BASH_ENV", "SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT"]);
/** How many helpers may end unasked in one process before none is started any more (a broken one is replaced, not forever). */
const MAX_DEATHS = 3;
/** How many environments may have a helper at once (the least recently used idle one makes room). */
const MAX_HELPERS = 4;

let deaths = 0;
const helpers = new Map<string, Helper>();

function helpersWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (process.platform !== "linux" || process.env.AGENTMD_SHELL_HELPER === "off") return false;
  for (const name in env) if (READ_AT_START.has(name) || name.startsWith("BASH_FUNC_")) return false;
  return shellLevelAfterStart(env.SHLVL) !== undefined;
}

/**
 * The helper for this environment, started (not yet ready) if there is none. Helpers are kept
 * most recently used last; a new environment retires the least recently used idle one when
 * `MAX_HELPERS` are running.
 */
function helperFor(env: Readonly<Record<string, string | undefined>>): Helper | undefined {
  const key = envKey(env);
  const known = helpers.get(key);
  helpers.delete(key);
  if (known && !known.dead) {
    helpers.set(key, known);
    return known;
  }
  if (deaths >= MAX_DEATHS) return undefined;
  if (helpers.size >= MAX_HELPERS) {
    const idle = [...helpers.values()].find((h) => h.quiet());
    if (!idle) return undefined;
    idle.retire();
  }
  const helper = new Helper(env, (unasked) => {
    if (unasked) deaths++;
    if (helpers.get(key) === helper) helpers.delete(key);
  });
  helpers.set(key, helper);
  return helper;
}

/**
 * Starts the helper for an environment (as a command's start would) and waits until it takes
 * requests: its process and loopback port, or undefined when it cannot run here.
 */
export async function readyShellHelper(
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ pid: number; port: number } | undefined> {
  if (!helpersWanted(env)) return undefined;
  const helper = helperFor(env);
  if (!helper || !(await helper.whenReady)) return undefined;
  const pid = helper.process?.pid;
  return pid === undefined || helper.port === undefined ? undefined : { pid, port: helper.port };
}

function envKey(env: Readonly<Record<string, string | undefined>>): string {
  let key = "";
  for (const name of Object.keys(env).sort()) if (env[name] !== undefined) key += `${name}=${env[name]}\0`;
  return key;
}

interface Call {
  readonly child: HelperChild;
  readonly token: string;
  readonly direct: () => ChildProcess;
  started: boolean;
  /** The helper could not start it; a direct start runs it instead. */
  moved: boolean;
  exited: boolean;
  socket?: Socket;
  socketClosed: boolean;
}

class Helper {
  ready = false;
  dead = false;
  busy = false;
  /** Settles true once the helper takes requests, false if it failed before it could. */
  readonly whenReady: Promise<boolean>;
  private settleReady: (ready: boolean) => void = () => {};
  port: number | undefined;
  process: ChildProcess | undefined;
  private server: Server;
  private call: Call | undefined;
  /** Calls whose output socket has not connected yet, by token. */
  private readonly awaiting = new Map<string, Call>();
  /** Connections that have not presented a token yet: dropped once no call awaits one. */
  private readonly unproven = new Set<Socket>();

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** Called once when it ends: `unasked` when it failed or was killed, not retired. */
    private readonly forget: (unasked: boolean) => void,
  ) {
    this.whenReady = new Promise((resolve) => (this.settleReady = resolve));
    this.server = nodeNet().createServer((socket) => this.accept(socket));
    this.server.unref();
    this.server.on("error", () => this.die());
    this.server.listen(0, "127.0.0.1", () => this.start());
  }

  private start(): void {
    const address = this.server.address();
    if (this.dead || address === null || typeof address === "string") {
      this.die();
      return;
    }
    this.port = address.port;
    const own: Record<string, string | undefined> = { ...this.env };
    for (const name of HELPER_OWN) delete own[name];
    try {
      this.process = childProcess().spawn(
        "bash",
        ["--noprofile", "--norc", "-c", helperScript(address.port, this.env)],
        {
          env: own,
          detached: true,
          stdio: ["pipe", "pipe", "ignore"],
        },
      );
    } catch {
      this.die();
      return;
    }
    const p = this.process;
    p.on("error", () => this.die());
    p.on("exit", () => this.die());
    p.stdin?.on("error", () => this.die());
    if (p.stdout) createInterface({ input: p.stdout }).on("line", (line) => this.line(line));
    this.idle();
    this.ready = true;
    this.settleReady(true);
  }

  /** Nothing of an idle helper keeps agentmd running. */
  private idle(): void {
    const p = this.process as (ChildProcess & { stdout: Socket | null; stdin: Socket | null }) | undefined;
    p?.unref();
    p?.stdout?.unref?.();
    p?.stdin?.unref?.();
  }

  private busyNow(): void {
    const p = this.process as (ChildProcess & { stdout: Socket | null; stdin: Socket | null }) | undefined;
    p?.ref();
    p?.stdout?.ref?.();
  }

  run(request: { lines: string; token: string }, direct: () => ChildProcess): ChildProcess {
    const child = new HelperChild();
    this.busy = true;
    this.busyNow();
    const call: Call = {
      child,
      token: request.token,
      direct,
      started: false,
      moved: false,
      exited: false,
      socketClosed: false,
    };
    this.call = call;
    this.awaiting.set(call.token, call);
    // Once the output is not read any more (the run settled), no connection can bring it.
    child.stdout.once("close", () => this.settleToken(call));
    this.process?.stdin?.write(request.lines);
    return child as unknown as ChildProcess;
  }

  private line(line: string): void {
    const call = this.call;
    if (!call) return;
    if (line === "nostart") {
      // Nothing ran (the folder or the socket failed): a direct start stands in, once the helper
      // has reaped the subshell (its `exit` line) and is free for the next command.
      call.moved = true;
      this.settleToken(call);
    } else if (line.startsWith("started ")) {
      call.started = true;
      call.child.started(Number(line.slice(8)));
    } else if (line.startsWith("exit ")) {
      if (call.moved || !call.started) {
        // A subshell that ended before it said it started ran nothing either.
        this.done();
        this.settleToken(call);
        call.child.become(call.direct);
        return;
      }
      call.exited = true;
      call.child.exited(Number(line.slice(5)), null);
      this.maybeClose(call);
    }
  }

  /**
   * A connection is a command's output once it presents the token of a call that awaits one. One
   * that comes while no call awaits, sends anything else, or is still silent when no call awaits
   * any more (a stranger holding it), is closed.
   */
  private accept(socket: Socket): void {
    socket.on("error", () => {});
    if (this.awaiting.size === 0) {
      socket.destroy();
      return;
    }
    this.unproven.add(socket);
    socket.once("close", () => this.unproven.delete(socket));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(0x0a);
      if (nl < 0) {
        if (head.length > 64) socket.destroy();
        return;
      }
      socket.off("data", onData);
      this.unproven.delete(socket);
      const call = this.awaiting.get(head.subarray(0, nl).toString());
      if (!call) {
        socket.destroy();
        return;
      }
      this.settleToken(call);
      call.socket = socket;
      const out = call.child.stdout;
      const pass = (c: Buffer) => {
        if (!out.destroyed) out.write(c);
      };
      // Whoever reads the output stops reading (the run settled): the command's output is not wanted.
      out.once("close", () => socket.destroy());
      pass(head.subarray(nl + 1));
      socket.on("data", pass);
      socket.on("close", () => {
        call.socketClosed = true;
        this.maybeClose(call);
      });
    };
    socket.on("data", onData);
  }

  /** The call awaits no connection any more; with none awaited, a silent connection is a stranger's. */
  private settleToken(call: Call): void {
    this.awaiting.delete(call.token);
    if (this.awaiting.size > 0) return;
    for (const socket of this.unproven) socket.destroy();
    this.unproven.clear();
  }

  /**
   * The helper is free once the command has exited; the call is over once its output has closed too.
   * A command that said it started has connected (it connects first), so its socket is on its way.
   */
  private maybeClose(call: Call): void {
    if (!call.exited) return;
    if (call === this.call) this.done();
    if (call.socketClosed) call.child.closed();
  }

  private done(): void {
    this.call = undefined;
    this.busy = false;
    if (!this.dead) this.idle();
  }

  /** A helper that failed: its call, if it never ran, starts directly; if it ran, it is reported killed. */
  /** No command running and none whose output is still to connect: it can be retired unnoticed. */
  quiet(): boolean {
    return !this.busy && this.awaiting.size === 0;
  }

  /** Ends an idle helper that is no longer wanted (another environment needs its place). */
  retire(): void {
    this.die(false);
  }

  private die(unasked = true): void {
    if (this.dead) return;
    this.dead = true;
    this.ready = false;
    this.settleReady(false);
    this.forget(unasked);
    this.server.close();
    try {
      this.process?.kill("SIGKILL");
    } catch {
      // already gone
    }
    const call = this.call;
    this.call = undefined;
    this.busy = false;
    for (const waiting of this.awaiting.values()) if (waiting !== call) waiting.child.closed();
    this.awaiting.clear();
    for (const socket of this.unproven) socket.destroy();
    if (!call) return;
    // A call whose output connected ran, said so or not: it must not run a second time.
    if (call.moved || (!call.started && !call.socket)) call.child.become(call.direct);
    else if (!call.exited) {
      call.exited = true;
      call.child.kill("SIGKILL");
      call.child.exited(null, "SIGKILL");
      call.socket?.destroy();
      call.child.closed();
    }
  }
}
