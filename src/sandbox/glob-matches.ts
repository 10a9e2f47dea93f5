import path from "node:path";
import picomatch from "picomatch";
import type { PathPattern } from "../permissions/path-pattern.js";
import type { FsView } from "./fs-view.js";

/** How many entries one glob may visit before the walk gives up (see `globMatches`). */
export const GLOB_WALK_LIMIT = 200_000;

const GLOB_CHARS = /(?<!\\)[*?[\]{}]/;
const PICO_OPTIONS = { dot: true, noextglob: true, nonegate: true } as const;

/**
 * The existing paths a glob matches, found by walking its base folder (symlinks are not followed;
 * a folder that matches is returned whole, not entered). Folders that cannot hold a match are
 * skipped (`src/*\/config.json` enters only the folders of src). Undefined when the walk would visit
 * more than `limit` entries: the caller must then choose something wider. Contract: never throws.
 */
export function globMatches(
  pattern: PathPattern,
  fs: FsView,
  limit = GLOB_WALK_LIMIT,
): readonly string[] | undefined {
  if (pattern.literal) return fs.kind(pattern.text) === "missing" ? [] : [pattern.text];
  if (fs.kind(pattern.base) !== "dir") return [];
  const enter = folderFilter(pattern);
  const found: string[] = [];
  const pending: [string, number][] = [[pattern.base, 0]];
  let visited = 0;
  while (pending.length > 0) {
    const [dir, depth] = pending.pop() as [string, number];
    for (const entry of fs.list(dir)) {
      if (++visited > limit) return undefined;
      const p = path.posix.join(dir, entry.name);
      if (pattern.test(p)) found.push(p);
      else if (entry.dir && enter(entry.name, depth)) pending.push([p, depth + 1]);
    }
  }
  return found.sort();
}

/**
 * Whether a folder at `depth` below the base (named `name`) can hold a match: its name must match
 * the glob's segment at that depth, until a `**` (below which anything can). Braces, which can hold
 * a `/`, turn the filter off.
 */
function folderFilter(pattern: PathPattern): (name: string, depth: number) => boolean {
  const glob = pattern.text;
  const rest = glob.slice(glob.lastIndexOf("/", glob.search(GLOB_CHARS)) + 1);
  if (rest.includes("{")) return () => true;
  const segments = rest.split("/");
  const globstar = segments.findIndex((s) => s.includes("**"));
  const matchers = segments.map((s) => picomatch(s, PICO_OPTIONS));
  return (name, depth) => {
    if (globstar !== -1 && depth >= globstar) return true;
    if (depth >= segments.length - 1) return false;
    return (matchers[depth] as (s: string) => boolean)(name);
  };
}
