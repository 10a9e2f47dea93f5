import { escapeGlob, type PathPattern } from "../permissions/path-pattern.js";
import type { Constraint } from "../permissions/types.js";

/**
 * A part of the file system a sandbox can bind as one mount: a folder with everything below it
 * (`tree`), or one path alone.
 */
export interface Area {
  readonly path: string;
  readonly tree: boolean;
}

/** `child` is `dir` or below it. */
export const within = (child: string, dir: string): boolean =>
  dir === "/" || child === dir || child.startsWith(`${dir}/`);

/**
 * The area a path pattern covers exactly, or null when no mount can be that exact: a literal path
 * is that path; `D/**` (and `D/**\/*`, everything below D) is the folder D; any other glob (`src/*.ts`,
 * `**\/*.lock`) covers files a folder mount would widen, so it covers no area.
 */
export function areaOfPattern(p: PathPattern): Area | null {
  if (p.literal) return { path: p.text, tree: false };
  const head = p.base === "/" ? "" : escapeGlob(p.base);
  return p.text === `${head}/**` || p.text === `${head}/**/*` ? { path: p.base, tree: true } : null;
}

/** The compiled path pattern of a constraint, or undefined for any other kind (or a bad one). */
export function pathPatternOf(c: Constraint): PathPattern | undefined {
  return c.kind === "path" ? c.compiled : undefined;
}

/** What both areas cover, as one area; null when they share nothing a mount could hold. */
export function intersectAreas(a: Area, b: Area): Area | null {
  if (a.tree && b.tree) return within(a.path, b.path) ? a : within(b.path, a.path) ? b : null;
  if (a.tree) return within(b.path, a.path) ? b : null;
  if (b.tree) return within(a.path, b.path) ? a : null;
  return a.path === b.path ? a : null;
}

/** Whether an area holds the path (for a tree, the path or anything below it). */
export const areaHolds = (a: Area, p: string): boolean => (a.tree ? within(p, a.path) : p === a.path);

/** Drops areas another one already holds, and repeats; shallow folders first. */
export function outermost(areas: readonly Area[]): Area[] {
  const sorted = [...areas].sort((x, y) => x.path.length - y.path.length || Number(y.tree) - Number(x.tree));
  const kept: Area[] = [];
  for (const a of sorted) if (!kept.some((k) => areaHolds(k, a.path) && (k.tree || !a.tree))) kept.push(a);
  return kept;
}
