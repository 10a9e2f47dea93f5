import type { PathPattern } from "../permissions/path-pattern.js";
import { offered } from "../permissions/permission-list.js";
import { covers } from "../permissions/tool-matcher.js";
import type { Constraint, PermissionList, ToolSpecs } from "../permissions/types.js";
import type { FsView } from "./fs-view.js";
import { globMatches } from "./glob-matches.js";
import {
  type Area,
  areaHolds,
  areaOfPattern,
  intersectAreas,
  outermost,
  pathPatternOf,
  within,
} from "./path-areas.js";

/** The tools whose path rules say what a command may write. */
export const WRITING_TOOLS = ["Write", "Edit"] as const;

export interface WritableRoots {
  /** Folders (and single files) bound read-write: real paths that exist. */
  readonly writable: readonly Area[];
  /** Existing paths inside them that a deny rule keeps from being written: bound read-only over themselves. */
  readonly readOnly: readonly string[];
  readonly notes: readonly string[];
}

export interface WritableContext {
  readonly specs: ToolSpecs;
  /** What a bare `Write` (or a list with no restriction) makes writable. */
  readonly projectDir: string;
  readonly fs: FsView;
  /** Matches of a pattern, as `globMatches` finds them; the run's cache, when it has one. */
  readonly matches?: (p: PathPattern) => readonly string[] | undefined;
}

/**
 * What commands may write inside the sandbox: never wider than the lists allow. Each writing tool
 * the run offers (Write, Edit) must allow it, so with both offered a folder must be allowed to both.
 * A rule without a pattern (a bare `Write`, or no list at all) gives the project folder, never the
 * whole disk; `D/**` gives D; a literal path gives that one existing file; any other glob gives
 * nothing, since a folder mount would widen it. A deny rule inside a writable folder makes what it
 * names read-only where that exists, and the folder not writable at all where it cannot be cut out
 * (a whole-folder deny around it, an uninterpretable pattern, a glob too big to list). Pure, given `fs`.
 */
export function writableRoots(list: PermissionList, ctx: WritableContext): WritableRoots {
  const notes: string[] = [];
  const tools = WRITING_TOOLS.filter((t) => usable(list, t, ctx.specs));
  if (tools.length === 0) return { writable: [], readOnly: [], notes };
  let areas: Area[] | undefined;
  for (const tool of tools) {
    const own = areasOf(list, tool, ctx, notes);
    areas = areas === undefined ? own : intersectAll(areas, own);
  }
  const lexical = outermost(areas ?? []);
  const denies = denyConstraints(list);
  const readOnly: string[] = [];
  const writable: Area[] = [];
  for (const area of lexical) {
    const real = realArea(area, lexical, ctx.fs, notes);
    if (!real) continue;
    // Deny patterns are judged on both paths, as decide judges a call on both.
    const carved = carve(area, denies, ctx, notes);
    const carvedReal = real.path === area.path ? [] : carve(real, denies, ctx, notes);
    if (carved === null || carvedReal === null) continue;
    writable.push(real);
    for (const m of [...carved, ...carvedReal]) {
      const r = ctx.fs.realPath(m);
      if (areaHolds(real, r)) readOnly.push(r);
    }
  }
  return {
    writable: outermost(writable),
    readOnly: [...new Set(readOnly)].sort(),
    notes: [...new Set(notes)],
  };
}

/** Offered, and not denied by its family's head being removed (`disallowed-tools: Edit` stops Write too). */
function usable(list: PermissionList, tool: string, specs: ToolSpecs): boolean {
  if (offered(list, [tool]).length === 0) return false;
  const head = specs.get(tool)?.family;
  return head === undefined || !list.deny.some((d) => !d.constraint && covers(d.tool, head));
}

/** The areas the rules of one tool allow as wholes: a union over its rules. */
function areasOf(list: PermissionList, tool: string, ctx: WritableContext, notes: string[]): Area[] {
  const whole: Area = { path: ctx.projectDir, tree: true };
  if (list.rules === null) return [whole];
  const out: Area[] = [];
  for (const rule of list.rules) {
    if (!covers(rule.tool, tool)) continue;
    // A rule without a pattern gives the project; one with patterns, what all of them cover.
    let area: Area | null | undefined = rule.constraints.length === 0 ? whole : undefined;
    for (const c of rule.constraints) {
      const p = pathPatternOf(c);
      const own = p ? areaOfPattern(p) : null;
      if (own === null) {
        notes.push(
          `${tool}(${c.text}) makes nothing writable for commands: only a folder with everything below it (DIR/**) or one existing file can be`,
        );
      }
      area = own === null || area === null ? null : area === undefined ? own : intersectAreas(area, own);
    }
    if (area) out.push(area);
  }
  return out;
}

function intersectAll(a: readonly Area[], b: readonly Area[]): Area[] {
  const out: Area[] = [];
  for (const x of a)
    for (const y of b) {
      const both = intersectAreas(x, y);
      if (both) out.push(both);
    }
  return outermost(out);
}

/**
 * An area as a mount sees it: its real path, which must exist. An area that leads through a
 * symlink is kept only where its real path is writable too (decide judges both paths).
 */
function realArea(a: Area, areas: readonly Area[], fs: FsView, notes: string[]): Area | undefined {
  const real = fs.realPath(a.path);
  const kind = fs.kind(real);
  if (kind === "missing") {
    notes.push(
      `${a.path} does not exist, so commands cannot write ${a.tree ? "in it" : "it"} (create it first)`,
    );
    return undefined;
  }
  if (a.tree !== (kind === "dir")) {
    notes.push(`${a.path} is not a ${a.tree ? "folder" : "file"}, so it is not made writable`);
    return undefined;
  }
  if (real !== a.path && !areas.some((b) => areaHolds(b, real))) {
    notes.push(`${a.path} leads through a symlink to ${real}, which the lists do not allow writing`);
    return undefined;
  }
  return { path: real, tree: a.tree };
}

/** The pattern denies of the writing tools (a bare deny was handled by `usable`). */
function denyConstraints(list: PermissionList): Constraint[] {
  return list.deny.flatMap((d) =>
    d.constraint && WRITING_TOOLS.some((t) => covers(d.tool, t)) ? [d.constraint] : [],
  );
}

/**
 * The existing paths of an area that deny rules name, to bind read-only; null when the area cannot
 * be writable at all.
 */
function carve(
  area: Area,
  denies: readonly Constraint[],
  ctx: WritableContext,
  notes: string[],
): string[] | null {
  const out: string[] = [];
  for (const c of denies) {
    const p = pathPatternOf(c);
    if (!p) {
      notes.push(`the deny rule '${c.text}' cannot be interpreted, so ${area.path} is not writable`);
      return null;
    }
    if (!area.tree) {
      if (p.test(area.path)) return null;
      continue;
    }
    const whole = areaOfPattern(p);
    if (whole && (whole.tree ? within(area.path, whole.path) : whole.path === area.path)) return null;
    if (!within(p.base, area.path) && !within(area.path, p.base)) continue;
    const found = existing(p, whole, ctx);
    if (found === undefined) {
      notes.push(`the deny rule '${c.text}' matches too many paths to list, so ${area.path} is not writable`);
      return null;
    }
    for (const m of found) if (within(m, area.path)) out.push(m);
    if (!whole || found.length === 0)
      notes.push(
        `'${c.text}' is kept read-only where it exists now; a command can still create new paths it names`,
      );
  }
  return out;
}

/** What a deny names that exists: its path or folder, or a glob's matches (undefined: too many to list). */
function existing(p: PathPattern, whole: Area | null, ctx: WritableContext): readonly string[] | undefined {
  if (whole) return ctx.fs.kind(whole.path) === "missing" ? [] : [whole.path];
  return ctx.matches ? ctx.matches(p) : globMatches(p, ctx.fs);
}
