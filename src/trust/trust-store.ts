import { readFileSync } from "node:fs";
import path from "node:path";
import { withFileLock } from "../shared/file-lock.js";
import { readJsonStore } from "../shared/json-store.js";
import { makeFolderOf, writeFileWhole } from "../shared/write-whole.js";
import type { CodeItem, RepositoryCode } from "./code-item.js";

/** One trusted folder: the digest of its code as it was reviewed, and the listing (to name what changed). */
export interface TrustEntry {
  readonly digest: string;
  readonly trustedAt: string;
  readonly items: readonly CodeItem[];
}

/** `~/.agentmd/trust.json`: trusted folders by real path. */
export interface TrustFile {
  readonly version: 1;
  readonly folders: Readonly<Record<string, TrustEntry>>;
}

const EMPTY: TrustFile = { version: 1, folders: {} };

/**
 * Where trust is kept: under the home folder of the environment agentmd was started with (never a
 * project's settings, which could point it at a file of their own).
 */
export function trustFile(home: string): string {
  return path.join(home, ".agentmd", "trust.json");
}

/**
 * The trust file of `home`. Contract: never throws; a missing or unreadable file trusts nothing
 * (a folder whose trust cannot be read runs restricted).
 */
export function readTrust(home: string): TrustFile {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(trustFile(home), "utf8"));
  } catch {
    return EMPTY;
  }
  if (typeof value !== "object" || value === null) return EMPTY;
  const folders = (value as { folders?: unknown }).folders;
  if (typeof folders !== "object" || folders === null || Array.isArray(folders)) return EMPTY;
  const out: Record<string, TrustEntry> = {};
  for (const [dir, entry] of Object.entries(folders)) if (isEntry(entry)) out[dir] = entry;
  return { version: 1, folders: out };
}

/**
 * Records `code` as trusted for its folder, over any earlier entry, keeping every other entry as
 * the file holds it. Throws `WriteError` when the file cannot be written, or cannot be read back
 * as a trust file (a hand edit that broke it): such a file is never overwritten.
 */
export function recordTrust(home: string, code: RepositoryCode, now = new Date()): void {
  const entry: TrustEntry = { digest: code.digest, trustedAt: now.toISOString(), items: code.items };
  changeTrust(home, (folders) => {
    folders[code.dir] = entry;
    return true;
  });
}

/** Removes the folder's trust; false when it had none. Throws `WriteError` as `recordTrust`. */
export function revokeTrust(home: string, dir: string): boolean {
  return changeTrust(home, (folders) => {
    if (!Object.hasOwn(folders, dir)) return false;
    delete folders[dir];
    return true;
  });
}

/**
 * The one read-modify-write of the trust file, under its lock (two agentmd trusting at once both
 * keep their folder), written whole (see `writeFileWhole`). `change` edits the folders as the file
 * holds them (entries it does not understand are kept as they are) and says whether to write.
 */
function changeTrust(home: string, change: (folders: Record<string, unknown>) => boolean): boolean {
  const file = trustFile(home);
  makeFolderOf(file, 0o700);
  return withFileLock(file, () => {
    const folders = trustFolders(file);
    if (!change(folders)) return false;
    writeFileWhole(file, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
    return true;
  });
}

/**
 * The file's folders as it holds them, strictly: a file that is there but cannot be read as a
 * trust file throws `WriteError` (what `trust --list` and every change say).
 */
export function trustFolders(file: string): Record<string, unknown> {
  return readJsonStore(file, {
    key: "folders",
    noun: "a trust file",
    away: "to start again (every folder is then untrusted)",
    versionOptional: true,
  });
}

function isEntry(x: unknown): x is TrustEntry {
  if (typeof x !== "object" || x === null) return false;
  const e = x as Record<string, unknown>;
  return (
    typeof e.digest === "string" &&
    typeof e.trustedAt === "string" &&
    Array.isArray(e.items) &&
    e.items.every(
      (i) =>
        typeof i === "object" &&
        i !== null &&
        ["kind", "id", "text", "file", "hash"].every(
          (k) => typeof (i as Record<string, unknown>)[k] === "string",
        ),
    )
  );
}
