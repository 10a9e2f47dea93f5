import path from "node:path";

/**
 * Whether the absolute path `child` is `dir` or lies below it. Both are taken as given (lexically
 * normalised, symlinks not resolved; a caller that must not be fooled by a link checks the real
 * paths too). The root `/` holds everything: a check for `${dir}/` would look for `//` and find
 * nothing.
 */
export function isInside(child: string, dir: string): boolean {
  const rel = path.relative(dir, child);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}
