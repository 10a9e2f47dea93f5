import type { ReadRecord } from "./types.js";

/** A fresh per-run record of files read (see `ReadRecord`). */
export function createReadRecord(): ReadRecord {
  const seen = new Map<string, number>();
  return {
    markRead: (file, mtimeMs) => {
      seen.set(file, mtimeMs);
    },
    readAt: (file) => seen.get(file),
  };
}
