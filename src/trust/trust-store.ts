import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
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

/** Records `code` as trusted for its folder, over any earlier entry. Throws when the file cannot be written. */
export function recordTrust(home: string, code: RepositoryCode, now = new Date()): void {
  const file = readTrust(home);
  const entry: TrustEntry = { digest: code.digest, trustedAt: now.toISOString(), items: code.items };
  writeTrust(home, { version: 1, folders: { ...file.folders, [code.dir]: entry } });
}

/** Removes the folder's trust; false when it had none. Throws when the file cannot be written. */
export function revokeTrust(home: string, dir: string): boolean {
  const file = readTrust(home);
  if (!Object.hasOwn(file.folders, dir)) return false;
  const folders = Object.fromEntries(Object.entries(file.folders).filter(([d]) => d !== dir));
  writeTrust(home, { version: 1, folders });
  return true;
}

/**
 * Written whole to a file beside it, then renamed over it: a reader sees the old file or the new
 * one, never half of one, and two writers lose at most one entry, never the file.
 */
function writeTrust(home: string, value: TrustFile): void {
  const file = trustFile(home);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
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
