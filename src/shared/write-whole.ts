import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { WriteError } from "./errors.js";

/**
 * The one way agentmd replaces a file it keeps (settings, the trust file, plugin records): written
 * whole to a temporary file in the same folder, flushed to disk, then renamed over the file. A
 * reader sees the old file or the new one, never part of one; a full disk, a folder that cannot be
 * made or written leave the old file as it was and throw `WriteError`, whose message names the
 * file and says why in one line. A symlinked file is written where the link points (the link
 * stays); an existing file keeps its mode, unless `ownerOnly` (a file of secrets), which is always
 * written with `mode`. `folderMode` is the mode of folders made on the way.
 */
export function writeFileWhole(
  file: string,
  text: string | Uint8Array,
  options: { readonly mode?: number; readonly folderMode?: number; readonly ownerOnly?: boolean } = {},
): void {
  const target = linkTarget(file);
  const dir = path.dirname(target);
  makeFolderOf(target, options.folderMode, file);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomPart()}.tmp`);
  try {
    const mode = (options.ownerOnly ? undefined : modeOf(target)) ?? options.mode ?? 0o666;
    const fd = openSync(temp, "wx", mode);
    try {
      const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : Buffer.from(text);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw writeError(e, file);
  }
  syncFolder(dir);
}

/** An errno failure as one line that names `file`: what a user must do about it. */
export function writeError(e: unknown, file: string): Error {
  if (e instanceof WriteError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  const why = WHY[code ?? ""];
  if (!why) return e as Error;
  return new WriteError(`cannot write ${file}: ${why}; it is left as it was`);
}

/**
 * A failure of the file system (a full disk while copying a folder) as one line naming the file
 * it was at; undefined for any other error, which is a bug to report as it is.
 */
export function fileSystemError(e: unknown): WriteError | undefined {
  if (e instanceof WriteError) return e;
  const { code, path: at, dest } = e as NodeJS.ErrnoException & { dest?: string };
  const why = WHY[code ?? ""];
  if (!why || (dest ?? at) === undefined) return undefined;
  return new WriteError(`cannot write ${dest ?? at}: ${why}`);
}

const WHY: Readonly<Record<string, string>> = {
  ENOSPC: "the disk is full (no space left on device)",
  EDQUOT: "the disk quota is used up",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EROFS: "the file system is read-only",
  EISDIR: "a folder is in its place",
  ENOTDIR: "a part of its path is a file, not a folder",
  EIO: "an input/output error",
  ENAMETOOLONG: "its name is too long",
  ELOOP: "its path has too many symbolic links",
};

/** Makes the folder `file` goes in (and those above it); throws `WriteError` naming `named`. */
export function makeFolderOf(file: string, mode?: number, named = file): void {
  const dir = path.dirname(file);
  try {
    mkdirSync(dir, { recursive: true, ...(mode !== undefined && { mode }) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR")
      throw new WriteError(
        `cannot write ${named}: ${firstFile(dir) ?? dir} is a file, not a folder; nothing was changed`,
      );
    throw writeError(e, named);
  }
}

/** The nearest part of `dir`'s path that exists and is not a folder. */
function firstFile(dir: string): string | undefined {
  for (let p = dir; p !== path.dirname(p); p = path.dirname(p)) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {}
  }
  return undefined;
}

function linkTarget(file: string): string {
  try {
    return lstatSync(file).isSymbolicLink() ? realpathSync(file) : file;
  } catch {
    return file;
  }
}

function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** The rename itself on disk too; a file system that cannot sync a folder is left to its own. */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const randomPart = () => Math.random().toString(36).slice(2, 10);
