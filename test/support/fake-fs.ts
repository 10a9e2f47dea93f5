import path from "node:path";
import type { FsView, PathKind } from "../../src/sandbox/fs-view.js";

/**
 * A file system in memory for the sandbox compiler: `files` are files (their folders exist too),
 * paths ending in `/` are empty folders, and `links` maps a symlink to its (absolute) target.
 */
export function fakeFs(files: readonly string[], links: Readonly<Record<string, string>> = {}): FsView {
  const dirs = new Set<string>(["/"]);
  const plain = new Set<string>();
  for (const f of files) {
    const isDir = f.endsWith("/");
    const p = isDir ? f.slice(0, -1) : f;
    if (isDir) dirs.add(p);
    else plain.add(p);
    for (let d = path.posix.dirname(p); d !== "/"; d = path.posix.dirname(d)) dirs.add(d);
  }
  for (const l of Object.keys(links))
    for (let d = path.posix.dirname(l); d !== "/"; d = path.posix.dirname(d)) dirs.add(d);
  const realPath = (p: string): string => {
    let current = p;
    for (let hops = 0; hops < 40; hops++) {
      const link = Object.keys(links).find((l) => current === l || current.startsWith(`${l}/`));
      if (!link) return current;
      current = `${links[link]}${current.slice(link.length)}`;
    }
    return current;
  };
  const kind = (p: string): PathKind => {
    const r = realPath(p);
    return dirs.has(r) ? "dir" : plain.has(r) ? "file" : "missing";
  };
  return {
    kind,
    realPath,
    list(dir) {
      if (!dirs.has(dir)) return [];
      const names = new Map<string, boolean>();
      const prefix = dir === "/" ? "/" : `${dir}/`;
      for (const p of [...dirs, ...plain, ...Object.keys(links)]) {
        if (!p.startsWith(prefix) || p === dir) continue;
        const name = p.slice(prefix.length).split("/")[0] as string;
        const child = `${prefix}${name}`;
        names.set(name, dirs.has(child) && !Object.hasOwn(links, child));
      }
      return [...names].map(([name, isDir]) => ({ name, dir: isDir }));
    },
  };
}
