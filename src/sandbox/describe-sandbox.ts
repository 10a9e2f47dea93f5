import path from "node:path";
import type { Definition } from "../definitions/types.js";
import { definitionList } from "../permissions/definition-list.js";
import { UNRESTRICTED } from "../permissions/permission-list.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { NODE_FS_VIEW } from "./fs-view.js";
import { probeSandbox } from "./probe-sandbox.js";
import { compileSandboxProfile, type SandboxProfile } from "./sandbox-profile.js";
import { joinSandbox, resolveSandbox, type SandboxSetting } from "./sandbox-setting.js";

/** What `agentmd tools` and `agentmd check` say of the sandbox (also their `--json`). */
export type SandboxReport =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      /** What turned it on: `--sandbox`, `agent.md`, `agents/reviewer.md`, … */
      readonly by: string;
      /** Folders (ending in `/`) and files commands may write, besides a private /tmp. */
      readonly writable: readonly string[];
      readonly readOnly: readonly string[];
      readonly hidden: readonly string[];
      /** `none`, or the hosts a command may reach through the proxy. */
      readonly network: "none" | readonly string[];
      readonly notes: readonly string[];
      /** Why every command would fail (the lists cannot be honoured). */
      readonly problem?: string;
      /** Why a run would be refused here (no bubblewrap, no user namespaces). */
      readonly unavailable?: string;
    };

/** A profile as a reader sees it: paths relative to the project when inside it. */
export function sandboxReport(
  profile: SandboxProfile | undefined,
  by: string,
  unavailable: string | undefined,
): SandboxReport {
  if (!profile) return { enabled: false };
  const shown = (p: string, dir: boolean) => {
    const rel = path.relative(profile.projectDir, p);
    const text = rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? p : rel;
    return dir && !text.endsWith("/") ? `${text}/` : text;
  };
  return {
    enabled: true,
    by,
    writable: profile.writable.map((w) => shown(w.path, w.tree)),
    readOnly: profile.readOnly.map((r) => shown(r, false)),
    hidden: profile.hidden.map((h) => shown(h.path, h.dir)),
    network: profile.network.kind === "none" ? "none" : profile.network.shown,
    notes: profile.notes,
    ...(profile.problem !== undefined && { problem: profile.problem }),
    ...(unavailable !== undefined && { unavailable }),
  };
}

/** The report in a few lines, for the terminal. */
export function formatSandboxReport(r: SandboxReport): string[] {
  if (!r.enabled) return ["sandbox: off (turn it on with 'sandbox: true' in agent.md, or --sandbox)"];
  const list = (xs: readonly string[]) => (xs.length > 0 ? xs.join(", ") : "nothing");
  const lines = [
    `sandbox: on (${r.by}): Bash commands and !cmd run inside bubblewrap`,
    `  may write: ${r.writable.length > 0 ? `${list(r.writable)} and` : "only"} a private /tmp`,
  ];
  if (r.readOnly.length > 0) lines.push(`  kept read-only: ${list(r.readOnly)}`);
  lines.push(`  hidden: ${list(r.hidden)}`);
  lines.push(
    r.network === "none" ? "  network: none" : `  network: HTTP(S) through a proxy, to: ${list(r.network)}`,
  );
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (r.problem) lines.push(`  every command would fail: ${r.problem}`);
  if (r.unavailable) lines.push(`  a run would be refused here: ${r.unavailable}`);
  return lines;
}

/** The sandbox of a chain of hops (main first), and what turned it on. */
export function sandboxOfChain(
  hops: readonly { readonly definition?: Definition }[],
  flag: boolean,
  root: string,
): { readonly setting?: SandboxSetting; readonly by: string } {
  const main = hops[0]?.definition;
  let setting = resolveSandbox(flag ? true : undefined, main?.sandbox);
  let by = flag ? "--sandbox" : "agent.md";
  for (const hop of hops.slice(1)) {
    const joined = joinSandbox(setting, hop.definition?.sandbox);
    if (!setting && joined && hop.definition) by = path.relative(root, hop.definition.file);
    setting = joined;
  }
  return { ...(setting && { setting }), by };
}

/**
 * What a run at the end of a chain could write and reach, and whether it could run here (bubblewrap
 * is probed only when the sandbox is on). Contract: never rejects.
 */
export async function describeSandbox(
  list: PermissionList,
  chain: { readonly setting?: SandboxSetting; readonly by: string },
  ctx: { readonly specs: ToolSpecs; readonly projectDir: string; readonly cwd: string },
  env: Readonly<Record<string, string | undefined>>,
): Promise<SandboxReport> {
  if (!chain.setting) return { enabled: false };
  const profile = compileSandboxProfile(list, chain.setting, { ...ctx, fs: NODE_FS_VIEW });
  const support = await probeSandbox(env);
  return sandboxReport(profile, chain.by, support.ok ? undefined : support.message);
}

/**
 * For `agentmd check`: the sandbox of a run of the project's main agent, when some definition of the
 * project says `sandbox` (a project that never mentions it is not told about it). Never rejects.
 */
export async function projectSandboxReport(
  root: string,
  definitions: readonly Definition[],
  ctx: { readonly specs: ToolSpecs; readonly home: string; readonly cwd: string },
  env: Readonly<Record<string, string | undefined>>,
): Promise<SandboxReport | undefined> {
  if (!definitions.some((d) => Object.hasOwn(d.frontmatter, "sandbox"))) return undefined;
  const main = definitions.find((d) => d.surface === "main");
  const list = main ? definitionList(main, ctx) : UNRESTRICTED;
  const chain = sandboxOfChain([main ? { definition: main } : {}], false, root);
  return describeSandbox(list, chain, { specs: ctx.specs, projectDir: root, cwd: ctx.cwd }, env);
}
