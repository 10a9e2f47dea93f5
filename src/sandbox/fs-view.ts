import { readdirSync, statSync } from "node:fs";
import { realPathOf } from "../tools/real-path.js";

/** What is at a path, symlinks followed: a file (or any other non-folder), a folder, or nothing. */
export type PathKind = "file" | "dir" | "missing";

/**
 * The little a sandbox profile needs to know of the file system, injected so that the compiler is
 * a pure function of a list and a view (tests give it a tree in memory).
 */
export interface FsView {
  kind(absolutePath: string): PathKind;
  /** Where a path really leads (symlinks followed as far as it exists); `realPathOf`'s contract. */
  realPath(absolutePath: string): string;
  /** The names in a folder, each with whether it is a folder (symlinks not followed); [] when unreadable. */
  list(dir: string): readonly { readonly name: string; readonly dir: boolean }[];
}

/** The real file system. Contract: never throws. */
export const NODE_FS_VIEW: FsView = {
  kind(p) {
    try {
      return statSync(p).isDirectory() ? "dir" : "file";
    } catch {
      return "missing";
    }
  },
  realPath: realPathOf,
  list(dir) {
    try {
      return readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
    } catch {
      return [];
    }
  },
};
