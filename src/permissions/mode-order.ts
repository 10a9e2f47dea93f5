import type { PermissionMode } from "../definitions/permission-modes.js";

/**
 * The permission modes from narrowest to widest, by what a run in each may do without a person
 * saying yes: `plan` runs only reading tools and read-only commands (it never writes); `default`
 * runs what the lists pre-approve and asks for the rest; `acceptEdits` runs edits inside the
 * working folders too; `bypassPermissions` runs every call the lists allow. Each mode runs, unasked,
 * at most what the next one does (plan's reading outside the working folders asks in default, and
 * a person can say yes: nothing plan runs is out of default's reach).
 */
export const MODE_ORDER: readonly PermissionMode[] = ["plan", "default", "acceptEdits", "bypassPermissions"];

/** The rank of a mode in `MODE_ORDER`: lower is narrower. */
export function modeRank(mode: PermissionMode): number {
  return MODE_ORDER.indexOf(mode);
}

/**
 * The mode a run started by a caller approves in: the narrower of the caller's and its own. Either
 * may be absent (no bound of its own: the other's); a run can never widen its caller's mode.
 */
export function narrowerMode(
  caller: PermissionMode | undefined,
  own: PermissionMode | undefined,
): PermissionMode | undefined {
  if (caller === undefined) return own;
  if (own === undefined) return caller;
  return modeRank(own) < modeRank(caller) ? own : caller;
}
