import { createReadStream } from "node:fs";
import path from "node:path";
import { fsPromises } from "../../shared/node-builtins.js";

/**
 * The file system the built-in tools use. Injected, so that tests run against a temp folder and a
 * sandbox could put its own in place; defaults to Node's.
 */
export interface ToolFs {
  stat(p: string): Promise<{ isFile(): boolean; isDirectory(): boolean; size: number; mtimeMs: number }>;
  readFile(p: string): Promise<Buffer>;
  /** The file in chunks, so that a tool can read a large file in bounded memory (optional). */
  readStream?(p: string): AsyncIterable<Buffer>;
  writeFile(p: string, data: string): Promise<void>;
  mkdir(p: string, opts: { recursive: true }): Promise<unknown>;
  readdir(
    p: string,
    opts: { withFileTypes: true },
  ): Promise<{ name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }[]>;
}

export const NODE_FS: ToolFs = {
  stat: (p) => fsPromises().stat(p),
  readFile: (p) => fsPromises().readFile(p),
  readStream: (p) => createReadStream(p, { highWaterMark: 64 * 1024 }),
  writeFile: (p, data) => fsPromises().writeFile(p, data, "utf8"),
  mkdir: (p, opts) => fsPromises().mkdir(p, opts),
  readdir: (p, opts) => fsPromises().readdir(p, opts),
};

/** The absolute path a tool input names, resolved against the run's working folder. */
export function resolveInput(cwd: string, p: string): string {
  return path.resolve(cwd, p);
}

/** `ENOENT` → "does not exist", and so on: the model reads this. */
export function describeFsError(e: unknown, p: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
      return `${p} does not exist`;
    case "EACCES":
    case "EPERM":
      return `permission denied: ${p}`;
    case "EISDIR":
      return `${p} is a folder`;
    case "ENOTDIR":
      return `a part of ${p} is not a folder`;
    default:
      return `${p}: ${(e as Error).message}`;
  }
}

/** A file whose first 8 KiB hold a NUL byte is taken as binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}
