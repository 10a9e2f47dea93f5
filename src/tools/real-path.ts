import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

const MAX_LINKS = 40;

/**
 * Where a path really leads: symlinks followed as far as the path exists, the rest appended, so
 * that a new file under a symlinked folder (or a dangling symlink) is judged where it would be
 * written. The path itself when nothing can be looked up. Contract: never throws.
 */
export function realPathOf(absolutePath: string): string {
  try {
    return realpathSync.native(absolutePath);
  } catch {
    return followByHand(absolutePath);
  }
}

function followByHand(absolutePath: string): string {
  const pending = absolutePath.split("/").filter(Boolean);
  let current = "/";
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === ".") continue;
    if (name === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return path.join(next, ...pending);
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) return absolutePath;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return absolutePath;
    }
    pending.unshift(...target.split("/").filter(Boolean));
    if (target.startsWith("/")) current = "/";
  }
  return current;
}
