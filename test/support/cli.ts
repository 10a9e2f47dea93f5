import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import path from "node:path";
import { main } from "../../src/cli/main.js";
import { REPO_ROOT } from "./fixtures.js";

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function runCli(
  argv: string[],
  opts: { cwd: string; env?: Record<string, string>; tty?: boolean },
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    cwd: opts.cwd,
    env: opts.env ?? {},
    stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty ?? false },
    stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false },
  });
  return { code, stdout, stderr };
}

/** Runs the built CLI (bin/agentmd.js → dist/) as a separate process, as a user would. */
export function runBin(argv: string[], opts: { cwd: string; env?: Record<string, string> }): CliRun {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "bin/agentmd.js"), ...argv], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "", ...opts.env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The built CLI as a separate process, without blocking this one (a fake server in this process
 * can answer it). `onStart` gets the child, to send it signals or write its standard input.
 */
export function runBinAsync(
  argv: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    input?: string;
    onStart?: (child: import("node:child_process").ChildProcess) => void;
    /** Start it as the installed command does: through the `bin/agentmd` launcher. */
    launcher?: boolean;
    /** Standard output goes to this file (`> FILE`) instead of a pipe; `stdout` is then "". */
    stdoutFile?: string;
    /** Another copy of the built CLI's `bin/agentmd.js` (an install laid out otherwise). */
    entry?: string;
  },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const [command, args] = opts.launcher
      ? [path.join(REPO_ROOT, "bin/agentmd"), argv]
      : [process.execPath, [opts.entry ?? path.join(REPO_ROOT, "bin/agentmd.js"), ...argv]];
    const out = opts.stdoutFile === undefined ? "pipe" : openSync(opts.stdoutFile, "w");
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? "", ...opts.env },
      stdio: ["pipe", out, "pipe"],
    });
    if (typeof out === "number") closeSync(out);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr }));
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
    opts.onStart?.(child);
  });
}
