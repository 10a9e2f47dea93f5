import type { PathPattern } from "../permissions/path-pattern.js";
import { covers } from "../permissions/tool-matcher.js";
import type { PermissionList } from "../permissions/types.js";
import type { FsView } from "./fs-view.js";
import { globMatches } from "./glob-matches.js";
import { areaOfPattern, pathPatternOf, within } from "./path-areas.js";

/** A path a command must not read: covered by an empty folder (`dir`) or an unreadable file. */
export interface HiddenPath {
  readonly path: string;
  readonly dir: boolean;
}

export interface HiddenPaths {
  readonly hidden: readonly HiddenPath[];
  readonly notes: readonly string[];
  /** Why commands cannot be kept from what a deny means: the sandbox cannot be set up. */
  readonly problem?: string;
}

export interface HiddenContext {
  readonly cwd: string;
  readonly fs: FsView;
  readonly matches?: (p: PathPattern) => readonly string[] | undefined;
}

/**
 * What `Read(…)` deny patterns name, hidden from commands: a literal path or a whole folder (`D/**`)
 * where it exists; a glob's matches that exist when this is computed (the run keeps the first
 * answer, so: when its first command starts), or, when there are too many to list, its whole base
 * folder. Real paths are hidden, so a symlink leads nowhere either. A deny that cannot be
 * interpreted, or a hidden folder holding the working folder, is a problem: the command is not run.
 * A bare `Read` deny hides nothing (it removes the Read tool; commands read what the system lets
 * them). Pure, given `fs`.
 */
export function hiddenPaths(list: PermissionList, ctx: HiddenContext): HiddenPaths {
  const notes: string[] = [];
  const found = new Map<string, HiddenPath>();
  const hide = (p: string) => {
    const real = ctx.fs.realPath(p);
    const kind = ctx.fs.kind(real);
    if (kind !== "missing") found.set(real, { path: real, dir: kind === "dir" });
  };
  for (const d of list.deny) {
    if (!d.constraint || !covers(d.tool, "Read")) continue;
    const p = pathPatternOf(d.constraint);
    if (!p)
      return {
        hidden: [],
        notes,
        problem: `the deny rule '${d.origin.raw}' cannot be interpreted, so what it keeps from being read cannot be hidden from commands`,
      };
    if (areaOfPattern(p)) {
      hide(p.literal ? p.text : p.base);
      continue;
    }
    const matches = ctx.matches ? ctx.matches(p) : globMatches(p, ctx.fs);
    if (matches === undefined) {
      notes.push(`'${d.origin.raw}' matches too many paths to list: all of ${p.base} is hidden instead`);
      hide(p.base);
      continue;
    }
    for (const m of matches) hide(m);
    notes.push(`'${d.origin.raw}' hides the paths it matches when the run's first command starts`);
  }
  const hidden = [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const over = hidden.find((h) => h.dir && within(ctx.cwd, h.path));
  if (over)
    return {
      hidden,
      notes,
      problem: `the working folder ${ctx.cwd} is inside ${over.path}, which a Read deny rule hides from commands`,
    };
  return { hidden, notes: [...new Set(notes)] };
}
