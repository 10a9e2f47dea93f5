import { within } from "./path-areas.js";
import type { SandboxProfile } from "./sandbox-profile.js";

/** Folders that get an empty, private tmpfs: the command's own temporary folder, and /run (host sockets). */
export const PRIVATE_MOUNTS = ["/tmp", "/run"] as const;

/** Where the proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET_INSIDE = "/run/agentmd-proxy.sock";

/**
 * Namespaces: a user namespace without capabilities, its own PID namespace (the command cannot see
 * or signal anything outside, and everything it leaves behind dies with it), no network but its own
 * loopback, its own IPC, hostname and cgroup view. `--die-with-parent` ties it to the runner;
 * `--new-session` keeps it from the terminal.
 */
const NAMESPACES = [
  "--unshare-user",
  "--unshare-ipc",
  "--unshare-pid",
  "--unshare-net",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
];

export interface BwrapLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Keep the command from making user namespaces of its own (bubblewrap 0.8 and later). */
  readonly disableUserns: boolean;
  /** The proxy's socket on the host, bound inside at `PROXY_SOCKET_INSIDE`. */
  readonly proxySocket?: string;
}

/**
 * The arguments that run `command args` under bubblewrap in a profile. Order matters: bubblewrap
 * applies them in turn, so the root is bound read-only first, private folders cover it, the
 * project and working folders show through them again, writable folders are bound over that,
 * the paths denies keep read-only are bound over those, and hidden paths go last. Pure.
 */
export function bwrapArgs(profile: SandboxProfile, launch: BwrapLaunch): string[] {
  const args = [...NAMESPACES, ...(launch.disableUserns ? ["--disable-userns"] : [])];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  for (const m of PRIVATE_MOUNTS) args.push("--tmpfs", m);
  const shown = throughPrivate([profile.projectDir, profile.cwd]);
  for (const p of shown) args.push("--ro-bind", p, p);
  const visible = (p: string) =>
    !PRIVATE_MOUNTS.some((m) => within(p, m)) ||
    shown.some((s) => within(p, s)) ||
    profile.writable.some((w) => within(p, w.path));
  for (const w of profile.writable) args.push("--bind", w.path, w.path);
  for (const r of profile.readOnly) if (visible(r)) args.push("--ro-bind", r, r);
  for (const h of profile.hidden) {
    if (!visible(h.path)) continue;
    if (h.dir) args.push("--tmpfs", h.path, "--remount-ro", h.path);
    else args.push("--ro-bind", "/dev/null", h.path);
  }
  if (launch.proxySocket) args.push("--bind", launch.proxySocket, PROXY_SOCKET_INSIDE);
  args.push("--chdir", profile.cwd, "--", launch.command, ...launch.args);
  return args;
}

/** The folders among `paths` that a private mount would cover, outermost first, each once. */
function throughPrivate(paths: readonly string[]): string[] {
  const under = paths
    .filter((p) => PRIVATE_MOUNTS.some((m) => within(p, m) && p !== m))
    .sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of under) if (!out.some((o) => within(p, o))) out.push(p);
  return out;
}
