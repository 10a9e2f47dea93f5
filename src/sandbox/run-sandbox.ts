import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { PathPattern } from "../permissions/path-pattern.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import type { CommandSandbox, SandboxStart, SpawnProcess } from "../tools/types.js";
import { bwrapArgs, PROXY_SOCKET_INSIDE } from "./bwrap-args.js";
import { type DomainProxy, startDomainProxy } from "./domain-proxy.js";
import { type FsView, NODE_FS_VIEW } from "./fs-view.js";
import { globMatches } from "./glob-matches.js";
import { probeSandbox } from "./probe-sandbox.js";
import { PROXY_BRIDGE, PROXY_PORT } from "./proxy-bridge.js";
import { compileSandboxProfile, type SandboxProfile } from "./sandbox-profile.js";
import type { SandboxSetting } from "./sandbox-setting.js";

/**
 * The sandbox of one run: its setting, and the sandbox of each call, compiled from the list in
 * force at that call (an inline skill narrows the list mid-run, and the sandbox follows it).
 */
export interface RunSandbox {
  readonly setting: SandboxSetting;
  /** `onStart`: told of each command's start in the sandbox (or its refusal), for the call's trace. */
  forCall(list: PermissionList, onStart?: (start: SandboxStart) => void): CommandSandbox;
  /** The profile a command would get now under `list` (what `agentmd tools` shows). */
  profile(list: PermissionList): SandboxProfile;
}

export interface RunSandboxContext {
  readonly specs: ToolSpecs;
  readonly projectDir: string;
  readonly cwd: string;
  readonly fs?: FsView;
}

const PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];
const NO_PROXY_VARS = ["NO_PROXY", "no_proxy"];

/**
 * The run's sandbox once bubblewrap is known to work here, or the sentence that refuses the run:
 * a sandbox that was asked for and cannot be had never runs a command unsandboxed.
 */
export async function openRunSandbox(
  setting: SandboxSetting,
  ctx: RunSandboxContext & { readonly env: Readonly<Record<string, string | undefined>> },
): Promise<{ ok: true; sandbox: RunSandbox } | { ok: false; message: string }> {
  const support = await probeSandbox(ctx.env);
  if (!support.ok) return { ok: false, message: `the run asks for a sandbox, and ${support.message}` };
  return { ok: true, sandbox: createRunSandbox(setting, support, ctx) };
}

export function createRunSandbox(
  setting: SandboxSetting,
  bwrap: { readonly bwrap: string; readonly disableUserns: boolean },
  ctx: RunSandboxContext,
): RunSandbox {
  const fs = ctx.fs ?? NODE_FS_VIEW;
  // A glob deny is listed once per run: what it matches when the run's first command starts.
  const walked = new Map<string, readonly string[] | undefined>();
  const matches = (p: PathPattern) => {
    if (!walked.has(p.text)) walked.set(p.text, globMatches(p, fs));
    return walked.get(p.text);
  };
  const profile = (list: PermissionList, cwd = ctx.cwd) =>
    compileSandboxProfile(list, setting, { ...ctx, cwd, fs, matches });
  return {
    setting,
    profile,
    forCall: (list, onStart) => ({
      wrapSpawn:
        (spawn: SpawnProcess): SpawnProcess =>
        (command, args, options) => {
          const started = performance.now();
          const p = profile(list, typeof options.cwd === "string" ? options.cwd : ctx.cwd);
          const say = (refused?: string) =>
            onStart?.({ ...startOf(p), ms: performance.now() - started, ...(refused && { refused }) });
          try {
            const child = launch(p, bwrap, spawn, { command, args, options });
            say();
            return child;
          } catch (e) {
            say((e as Error).message);
            throw e;
          }
        },
    }),
  };
}

/** What a trace says of a command's sandbox. */
function startOf(p: SandboxProfile): Omit<SandboxStart, "ms"> {
  return {
    writable: p.writable.map((a) => (a.tree ? `${a.path}/**` : a.path)),
    readOnly: [...p.readOnly],
    network: p.network.kind === "none" ? "none" : [...p.network.shown],
  };
}

/**
 * Starts a command under bubblewrap in a profile; with a network, through the proxy and its bridge.
 * Throws, starting nothing, when the profile cannot be honoured. Called by the process runner
 * (`shared/run-process.ts`) as its spawn: bubblewrap leads the group the runner stops, and
 * `--die-with-parent` takes everything inside with it.
 */
function launch(
  profile: SandboxProfile,
  bwrap: { readonly bwrap: string; readonly disableUserns: boolean },
  spawn: SpawnProcess,
  run: { command: string; args: string[]; options: SpawnOptions },
): ChildProcess {
  if (profile.problem) throw new Error(`the sandbox cannot be set up: ${profile.problem}`);
  const env: Record<string, string | undefined> = { ...(run.options.env ?? process.env), TMPDIR: "/tmp" };
  let proxy: DomainProxy | undefined;
  let inner = { command: run.command, args: run.args };
  if (profile.network.kind === "proxy") {
    proxy = startDomainProxy(profile.network.allows);
    for (const k of PROXY_VARS) env[k] = `http://127.0.0.1:${PROXY_PORT}`;
    for (const k of NO_PROXY_VARS) delete env[k];
    inner = {
      command: process.execPath,
      args: ["-e", PROXY_BRIDGE, "--", PROXY_SOCKET_INSIDE, String(PROXY_PORT), run.command, ...run.args],
    };
  }
  const args = bwrapArgs(profile, {
    ...inner,
    disableUserns: bwrap.disableUserns,
    ...(proxy && { proxySocket: proxy.socketPath }),
  });
  let child: ChildProcess;
  try {
    child = spawn(bwrap.bwrap, args, { ...run.options, env });
  } catch (e) {
    proxy?.close();
    throw e;
  }
  if (proxy) {
    const stop = proxy.close;
    child.once("close", stop);
    child.once("error", stop);
  }
  return child;
}
