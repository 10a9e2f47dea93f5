import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const MAX_TEXT = 1 << 20;

/**
 * A small file's text as it is now, or undefined when it is absent, not a file, over 1 MB or cannot
 * be read: what the permission engine reads package.json with. Contract: never throws.
 */
export function readTextOf(absolutePath: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(absolutePath, "r");
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_TEXT) return undefined;
    const buffer = Buffer.alloc(st.size);
    let at = 0;
    while (at < st.size) {
      const n = readSync(fd, buffer, at, st.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buffer.toString("utf8", 0, at);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
