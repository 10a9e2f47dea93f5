import { spawnSync } from "node:child_process";
import { mkdirSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A small real disk: a 64 KiB tmpfs mounted at `where` (made if missing); `fill` then leaves it
 * full. Mounting needs root (the tests run as root in their container); where it is refused the
 * test fails saying so rather than testing nothing. Returns the unmount, for the test's `finally`.
 */
export function smallDisk(where: string): () => void {
  mkdirSync(where, { recursive: true });
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", where], { encoding: "utf8" });
  if (mounted.status !== 0)
    throw new Error(`a full-disk test needs to mount a small tmpfs (as root): ${mounted.stderr.trim()}`);
  return () => {
    spawnSync("umount", ["-l", where]);
  };
}

/** Fills the disk of `where` (a file `filler` in it) but for `room` bytes. */
export function fill(where: string, room: number): void {
  const filler = path.join(where, "filler");
  try {
    writeFileSync(filler, Buffer.alloc(64 * 1024));
  } catch {
    // full: what is left is freed below
  }
  truncateSync(filler, Math.max(0, statSync(filler).size - room));
}
