import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { REPO_ROOT } from "./fixtures.js";

/**
 * Headless Chromium from Debian's `chromium` package, driven by playwright-core (which downloads
 * no browser of its own). Absent outside CI, the browser tests are skipped, loudly; in CI (`CI`
 * set) its absence fails them (.ci/run installs it).
 */
export const CHROMIUM = process.env.AGENTMD_CHROMIUM ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  const message = `${CHROMIUM} is missing: the tests of agentmd view need it (apt-get install chromium; .ci/run installs it)`;
  if (process.env.CI) throw new Error(`${message}. In CI this is a failure.`);
  console.warn(`\n!!! ${message}. They are SKIPPED. !!!\n`);
}

export function launchBrowser(): Promise<Browser> {
  // Chromium's own sandbox refuses to start as root (a container's CI); the page is ours anyway.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

export interface RunningView {
  readonly url: string;
  readonly child: ChildProcess;
  /** Ctrl-C, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the built `agentmd view` in `cwd` and resolves with the address it prints. */
export function startView(
  args: readonly string[],
  opts: { cwd: string; env: Readonly<Record<string, string>> },
): Promise<RunningView> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/agentmd.js"), "view", ...args], {
    cwd: opts.cwd,
    env: { ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)$/m.exec(out)?.[1];
      if (url)
        resolve({
          url,
          child,
          stop: () => {
            child.kill("SIGINT");
            return exited;
          },
        });
    });
    void exited.then((code) => reject(new Error(`agentmd view exited (${code}) before it listened: ${err}`)));
  });
}
