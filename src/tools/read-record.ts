import type { ReadRecord, SeenFile } from "./types.js";

/** A fresh per-run record of files read (see `ReadRecord`). */
export function createReadRecord(): ReadRecord {
  const seen = new Map<string, SeenFile>();
  return {
    markRead: (file, stamp) => {
      seen.set(file, stamp);
    },
    readAt: (file) => seen.get(file),
  };
}

/** A file as `stat` says it is now. */
export const seenNow = (st: { readonly mtimeMs: number; readonly size: number }): SeenFile => ({
  mtimeMs: st.mtimeMs,
  size: st.size,
});

/**
 * Whether a file may have changed since it was seen: another time or size than then (earlier too:
 * a file put back from elsewhere), or, seen only before a moment, a time not before it (one tick of
 * the clock can hold both the moment and a change).
 */
export function changedSince(
  st: { readonly mtimeMs: number; readonly size: number },
  seen: SeenFile,
): boolean {
  if ("before" in seen) return st.mtimeMs >= seen.before;
  return st.mtimeMs !== seen.mtimeMs || st.size !== seen.size;
}
