import { readFileSync } from "node:fs";
import path from "node:path";
import { isPackageManager, packageRun, type ScriptLine } from "../../permissions/package-scripts.js";
import { isInside } from "../../shared/is-inside.js";

/**
 * Package-manager scripts as the inventory follows them: `npm run X`, `npm test`, `pnpm X`,
 * `yarn X`, `bun run X`, `node --run X`, and an install's lifecycle scripts, read by the one
 * reader the deny list judges them with (`permissions/package-scripts.ts`), within the folders the
 * inventory holds. Reads files; runs nothing.
 */
export interface PackageScripts {
  /** The lines the scripts run, each with its script's name and package.json. */
  readonly lines: readonly ScriptLine[];
  /** What of the call cannot be seen (a package it installs or runs, an option not known). */
  readonly why?: string;
  /**
   * Every file read to see what runs (each package.json and .npmrc looked at): code of the project
   * even when it does not parse, since what it says decides what runs.
   */
  readonly read: readonly string[];
}

const MAX_FILE = 1 << 20;

export function packageScripts(
  words: readonly string[],
  cwds: readonly string[],
  roots: readonly string[],
): PackageScripts | undefined {
  const name = path.basename(words[0] ?? "");
  if (!isPackageManager(name)) return undefined;
  const within = (file: string) => roots.some((r) => isInside(file, r));
  const read: string[] = [];
  const readFile = (file: string) => {
    const text = within(file) ? readText(file) : undefined;
    if (text !== undefined && !read.includes(file)) read.push(file);
    return text;
  };
  let first: PackageScripts | undefined;
  for (const cwd of cwds) {
    const run = packageRun(words, name, cwd, readFile);
    if (run === undefined) return undefined;
    const found = "lines" in run ? { lines: run.lines, read } : { lines: run.seen ?? [], why: run.why, read };
    if (found.lines.length > 0) return found;
    first ??= found;
  }
  return first;
}

function readText(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8");
    return text.length > MAX_FILE ? undefined : text;
  } catch {
    return undefined;
  }
}
