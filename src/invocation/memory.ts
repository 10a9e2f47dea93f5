import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { memoryFolders, USER_MEMORY } from "../definitions/project-inputs.js";

/**
 * The main agent's context, as Claude Code gives it: memory files (`CLAUDE.md`, `.claude/CLAUDE.md`,
 * `CLAUDE.local.md` in the project root and each folder down to the working folder, `AGENTS.md`
 * in a folder without a CLAUDE.md, and the user's `~/.claude/CLAUDE.md`), their `@path` imports,
 * and a short block about the environment.
 */
export interface MemoryInput {
  readonly projectDir: string;
  readonly cwd: string;
  /** The user's `~/.claude` folder, if any. */
  readonly userDir?: string;
  readonly home: string;
  /** Whether the session may read a file: the Read rules of the lists, judged on its real path. */
  readonly mayRead: (file: string) => boolean;
  /**
   * Whether the run could read a file that an `@import` names without asking anyone: the approval
   * tier's word, asked only of imports outside the working folders (a project's CLAUDE.md must not
   * hand the model a file its own Read of would be refused). Imports made by the user's own
   * `~/.claude/CLAUDE.md`, and what they import, are the user's and not asked about. Absent: every
   * import the Read rules allow is given.
   */
  readonly mayImport?: (file: string) => boolean;
  readonly now?: Date;
}

export interface Memory {
  /** The files given, in order (imports after the file that imports them). */
  readonly files: readonly string[];
  /** What could not be given, and why (a denied import, a cycle, a file too big). */
  readonly skipped: readonly string[];
  readonly text: string;
}

/** How deep `@path` imports are followed (as Claude Code). */
export const MAX_IMPORT_DEPTH = 5;
/** Per file, and for all of them together: memory is context, not a corpus. */
const MAX_FILE_CHARS = 64 * 1024;
const MAX_TOTAL_CHARS = 256 * 1024;

/** Reads the memory and describes the environment. Contract: never throws. */
export function loadMemory(input: MemoryInput): Memory {
  const sections: string[] = [];
  const files: string[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  const add = (file: string, label: string, depth: number, users = false): void => {
    const real = realOrSelf(file);
    if (seen.has(real)) return;
    seen.add(real);
    if (!input.mayRead(file)) {
      skipped.push(`${file}: the Read rules of this session do not allow it`);
      return;
    }
    if (depth > 0 && !users && input.mayImport && !input.mayImport(file)) {
      skipped.push(`${file}: ${label}, outside the working folders, and this run may not read it`);
      return;
    }
    const text = readText(file);
    if (text === undefined) {
      skipped.push(`${file}: not a readable text file`);
      return;
    }
    const room = Math.min(MAX_FILE_CHARS, MAX_TOTAL_CHARS - total);
    if (room <= 0) {
      skipped.push(`${file}: the memory is over ${MAX_TOTAL_CHARS} characters already`);
      return;
    }
    const body =
      text.length > room
        ? `${text.slice(0, room)}\n[cut here: the file is longer than ${room} characters]`
        : text;
    total += body.length;
    files.push(file);
    sections.push(`Contents of ${file} (${label}):\n\n${body.trim()}`);
    for (const target of importsOf(text, path.dirname(file), input.home)) {
      if (depth >= MAX_IMPORT_DEPTH) {
        skipped.push(`${target}: imported more than ${MAX_IMPORT_DEPTH} levels deep`);
        continue;
      }
      if (existsSync(target)) add(target, `imported by ${file}`, depth + 1, users);
    }
  };
  const user = input.userDir && path.join(input.userDir, USER_MEMORY);
  if (user && isFile(user)) add(user, "the user's instructions for every project", 0, true);
  for (const dir of memoryFolders(input.projectDir, input.cwd)) {
    const claude = [path.join(dir, "CLAUDE.md"), path.join(dir, ".claude", "CLAUDE.md")].filter(isFile);
    const local = path.join(dir, "CLAUDE.local.md");
    const agents = path.join(dir, "AGENTS.md");
    for (const file of claude) add(file, "project instructions", 0);
    if (claude.length === 0 && isFile(agents)) add(agents, "project instructions", 0);
    if (isFile(local)) add(local, "the user's private project instructions", 0);
  }
  const env = environmentBlock(input.cwd, input.now ?? new Date());
  return { files, skipped, text: [env, ...sections].join("\n\n") };
}

/**
 * The `@path` imports of a memory file: `@` at the start of a word, outside code spans and fenced
 * blocks, naming a relative (to the file), absolute or `~/` path. E-mail addresses and `@scope/pkg`
 * names that name no file are left alone by the caller (only existing files are imported).
 */
export function importsOf(text: string, dir: string, home: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, "");
    for (const m of plain.matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[\w.\-/~]+)/g)) {
      const ref = (m[1] as string).replace(/[.,;:]+$/, "");
      if (ref === "" || ref.endsWith("/")) continue;
      out.push(ref.startsWith("~/") ? path.join(home, ref.slice(2)) : path.resolve(dir, ref));
    }
  }
  return out;
}

function environmentBlock(cwd: string, now: Date): string {
  return [
    "Here is useful information about the environment you are running in:",
    "<env>",
    `Working directory: ${cwd}`,
    `Is directory a git repo: ${inGitRepo(cwd) ? "Yes" : "No"}`,
    `Platform: ${process.platform}`,
    `Today's date: ${now.toISOString().slice(0, 10)}`,
    "</env>",
  ].join("\n");
}

function inGitRepo(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, ".git"))) return true;
    if (path.dirname(d) === d) return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A regular file's text, read no further than memory could use (a FIFO or a device is not read). */
function readText(file: string): string | undefined {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return undefined;
    const buf = Buffer.alloc(Math.min(stat.size, MAX_FILE_CHARS * 4 + 4));
    const fd = openSync(file, "r");
    try {
      const n = readSync(fd, buf, 0, buf.length, 0);
      const bytes = buf.subarray(0, n);
      if (bytes.includes(0)) return undefined;
      return bytes.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function realOrSelf(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}
