import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { runProcess } from "../shared/run-process.js";

/** Whether commands can be sandboxed here, and with which bubblewrap. */
export type SandboxSupport =
  | { readonly ok: true; readonly bwrap: string; readonly disableUserns: boolean }
  | { readonly ok: false; readonly message: string };

export const INSTALL_HINT =
  "install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
const USERNS_HINT =
  "bubblewrap needs user namespaces: enable them (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces above 0, and on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0), or allow them in the container this runs in";

const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, Promise<SandboxSupport>>();

/**
 * Whether bubblewrap runs here with the namespaces the sandbox uses, tried once per process for
 * each PATH: the first sandboxed run of a process waits for it (a few milliseconds), the next ones
 * do not. The answer says how to fix what is missing. Contract: never rejects.
 */
export function probeSandbox(env: Readonly<Record<string, string | undefined>>): Promise<SandboxSupport> {
  const key = env.PATH ?? "";
  let probe = probes.get(key);
  if (!probe) {
    probe = probeOnce(key);
    probes.set(key, probe);
  }
  return probe;
}

async function probeOnce(searchPath: string): Promise<SandboxSupport> {
  if (process.platform !== "linux")
    return {
      ok: false,
      message: `the sandbox runs commands under bubblewrap, which needs Linux (this is ${process.platform})`,
    };
  const bwrap = findExecutable("bwrap", searchPath);
  if (!bwrap)
    return {
      ok: false,
      message: `the sandbox needs bubblewrap (bwrap), which is not on PATH: ${INSTALL_HINT}`,
    };
  const base = ["--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/"];
  const rest = ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"];
  const full = await run(bwrap, [...base, "--disable-userns", ...rest]);
  if (full.ok) return { ok: true, bwrap, disableUserns: true };
  const plain = await run(bwrap, [...base, ...rest]);
  if (plain.ok) return { ok: true, bwrap, disableUserns: false };
  return {
    ok: false,
    message: `bubblewrap (${bwrap}) cannot set up the sandbox here: ${plain.why}; ${USERNS_HINT}`,
  };
}

/** An executable file named `name` in a PATH-style list of folders. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.resolve(dir, name);
    try {
      if (statSync(file).isFile()) {
        accessSync(file, constants.X_OK);
        return file;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

async function run(file: string, args: string[]): Promise<{ ok: true } | { ok: false; why: string }> {
  const r = await runProcess(file, args, { timeoutMs: PROBE_TIMEOUT_MS, maxChars: 2000 });
  if (r.kind === "exited" && r.code === 0) return { ok: true };
  const said = r.stderr.text().trim().split("\n").at(-1);
  if (said) return { ok: false, why: said };
  switch (r.kind) {
    case "exited":
      return { ok: false, why: `exit code ${r.code}` };
    case "signalled":
      return { ok: false, why: `killed by ${r.signal}` };
    case "timed-out":
      return { ok: false, why: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
    case "aborted":
      return { ok: false, why: "stopped" };
    case "not-started":
      return { ok: false, why: r.message };
  }
}
