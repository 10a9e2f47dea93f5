import type { PathPattern } from "../permissions/path-pattern.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import type { FsView } from "./fs-view.js";
import { type HiddenPath, hiddenPaths } from "./hidden-paths.js";
import { type NetworkPolicy, networkPolicy } from "./network-policy.js";
import type { Area } from "./path-areas.js";
import type { SandboxSetting } from "./sandbox-setting.js";
import { writableRoots } from "./writable-roots.js";

/**
 * What one command may do inside the sandbox, compiled from the effective list at its call: the
 * whole file system read-only but for `writable`, `readOnly` cut out of it, `hidden` covered, a
 * private /tmp, and `network`.
 */
export interface SandboxProfile {
  readonly cwd: string;
  readonly projectDir: string;
  readonly writable: readonly Area[];
  readonly readOnly: readonly string[];
  readonly hidden: readonly HiddenPath[];
  readonly network: NetworkPolicy;
  /** Where the sandbox is narrower than the lists, or cannot be as exact, in a sentence each. */
  readonly notes: readonly string[];
  /** Set when the lists cannot be honoured: the command is not run, and this says why. */
  readonly problem?: string;
}

export interface ProfileContext {
  readonly specs: ToolSpecs;
  readonly projectDir: string;
  readonly cwd: string;
  readonly fs: FsView;
  /** The existing matches of a glob, cached by the run (see `globMatches`). */
  readonly matches?: (p: PathPattern) => readonly string[] | undefined;
}

/** Compiles the sandbox of one command from the list in force at its call. Pure, given `ctx.fs`. */
export function compileSandboxProfile(
  list: PermissionList,
  setting: SandboxSetting,
  ctx: ProfileContext,
): SandboxProfile {
  const write = writableRoots(list, ctx);
  const read = hiddenPaths(list, ctx);
  return {
    cwd: ctx.cwd,
    projectDir: ctx.projectDir,
    writable: write.writable,
    readOnly: write.readOnly,
    hidden: read.hidden,
    network: networkPolicy(list, setting, ctx.specs, ctx.cwd),
    notes: [...write.notes, ...read.notes],
    ...(read.problem !== undefined && { problem: read.problem }),
  };
}
