import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";

/**
 * What `runProcess` sees of a command the helper started: a ChildProcess's events and streams.
 * Output goes to stdout (stderr is the same stream, as `2>&1`); `pid` is the command's process
 * group, known once the helper says it started. If the helper could not start it, it becomes the
 * direct start's child instead.
 */
export class HelperChild extends EventEmitter {
  pid: number | undefined;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin = null;
  private signal: NodeJS.Signals | undefined;
  private real: ChildProcess | undefined;

  started(pid: number): void {
    this.pid = pid;
    this.emit("spawn");
    if (this.signal) this.kill(this.signal);
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.emit("exit", code, signal);
  }

  closed(): void {
    if (!this.stdout.destroyed) this.stdout.end();
    if (!this.stderr.destroyed) this.stderr.end();
    this.emit("close");
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.real) return this.real.kill(signal);
    if (this.pid === undefined) {
      this.signal = signal;
      return true;
    }
    try {
      process.kill(-this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** The helper did not run it: a direct start stands in, its events and output passed on. */
  become(start: () => ChildProcess): void {
    let real: ChildProcess;
    try {
      real = start();
    } catch (e) {
      this.emit("error", e);
      return;
    }
    this.real = real;
    real.stdout?.pipe(this.stdout);
    real.stderr?.pipe(this.stderr);
    real.once("error", (e) => this.emit("error", e));
    if (real.pid !== undefined) this.started(real.pid);
    real.once("exit", (code, signal) => this.emit("exit", code, signal));
    real.once("close", () => this.emit("close"));
  }
}
