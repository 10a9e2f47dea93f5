import path from "node:path";
import picomatch from "picomatch";
import type { Compiled } from "./command-pattern.js";

/**
 * PATH patterns (Read, Write, Edit, Glob, Grep): globs in which `*` stays inside one path segment
 * and `**` crosses segments, dot-files included. Patterns are anchored when compiled: absolute as
 * written, `~/` at home, relative at the project folder. Parentheses and a leading `!` are ordinary
 * characters, so `report(1).csv` means that file, and the folders patterns are anchored at are
 * taken literally (a project in `proj{a,b}` is that folder). The subject is the absolute path of the
 * call, resolved against the run's working folder with `.` and `..` folded lexically; `decide` also
 * judges its real path when the caller can look it up (a symlink cannot lead out of what is allowed).
 */
export interface PathPattern {
  /** Anchored, normalised pattern text: the path itself for a literal pattern, else the glob. */
  readonly text: string;
  /** True when the pattern has no glob syntax: matching is string equality. */
  readonly literal: boolean;
  /** Every match is this folder or below it. */
  readonly base: string;
  /** The glob as a regular expression; null for a literal pattern. */
  readonly re: RegExp | null;
  readonly test: (subject: string) => boolean;
}

export interface AnchorContext {
  readonly projectDir: string;
  readonly home: string;
  readonly skillDir?: string;
  readonly pluginRoot?: string;
}

/** Glob syntax that is not escaped (`\*` is a star). */
const GLOB_CHARS = /(?<!\\)[*?[\]{}]/;
const PICO_OPTIONS = { dot: true, noextglob: true, nonegate: true } as const;

/**
 * A folder name taken literally inside a glob: a project in `proj{a,b}` or `app[1]` must not make
 * `Read(secrets/**)` miss, or `Read(src/**)` cover a sibling.
 */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
}

const unescapeGlob = (text: string) => text.replace(/\\(.)/g, "$1");

/** Substitutes `${PROJECT_DIR}`, `${SKILL_DIR}` and Claude Code's spellings of them, escaped for a glob. */
export function substituteVariables(text: string, ctx: AnchorContext): Compiled<string> {
  let problem: string | undefined;
  const out = text.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => {
    const value =
      name === "PROJECT_DIR" || name === "CLAUDE_PROJECT_DIR"
        ? ctx.projectDir
        : name === "SKILL_DIR" || name === "CLAUDE_SKILL_DIR"
          ? ctx.skillDir
          : name === "CLAUDE_PLUGIN_ROOT"
            ? (ctx.pluginRoot ?? ctx.projectDir)
            : undefined;
    if (value === undefined) problem ??= `${whole} has no value here`;
    return value === undefined ? whole : escapeGlob(value);
  });
  return problem ? { ok: false, problem } : { ok: true, pattern: out };
}

export function compilePathPattern(raw: string, ctx: AnchorContext): Compiled<PathPattern> {
  const substituted = substituteVariables(raw.trim(), ctx);
  if (!substituted.ok) return substituted;
  let text = substituted.pattern;
  if (text === "") return { ok: false, problem: "an empty path pattern" };
  if (text === "~" || text.startsWith("~/")) text = escapeGlob(ctx.home) + text.slice(1);
  if (!path.posix.isAbsolute(text)) text = path.posix.join(escapeGlob(ctx.projectDir), text);
  text = path.posix.normalize(text);
  if (text.length > 1 && text.endsWith("/")) text = text.slice(0, -1);
  if (!GLOB_CHARS.test(text)) {
    const plain = unescapeGlob(text);
    return {
      ok: true,
      pattern: { text: plain, literal: true, base: plain, re: null, test: (s) => s === plain },
    };
  }
  // Parentheses and a leading `!` are ordinary characters in a path.
  const glob = text.replace(/(?<!\\)[()]/g, "\\$&");
  const re = globRegExp(glob);
  if (re instanceof Error) return { ok: false, problem: `not a valid glob: ${re.message}` };
  const firstGlob = glob.search(GLOB_CHARS);
  const base = unescapeGlob(glob.slice(0, glob.lastIndexOf("/", firstGlob))) || "/";
  return { ok: true, pattern: { text: glob, literal: false, base, re, test: (s) => re.test(s) } };
}

/** A glob as one regular expression (what picomatch's matcher runs on POSIX). */
function globRegExp(glob: string): RegExp | Error {
  try {
    return picomatch.makeRe(glob, PICO_OPTIONS);
  } catch (e) {
    return e as Error;
  }
}

/**
 * Already absolute and normal: no `//`, no `.` or `..` segment, no trailing slash. (A segment that
 * merely starts with a dot takes the slow path too; the answer is the same.)
 */
function isNormalAbsolute(v: string): boolean {
  return (
    v === "/" ||
    (v.charCodeAt(0) === 47 && v.indexOf("/.") === -1 && v.indexOf("//") === -1 && !v.endsWith("/"))
  );
}

/** The absolute, lexically normalised path a call names, or undefined when it names none. */
export function pathSubject(value: unknown, cwd: string): string | undefined {
  if (typeof value !== "string" || value === "" || value.includes("\0")) return undefined;
  return isNormalAbsolute(value) ? value : path.posix.resolve(cwd, value);
}

const within = (child: string, dir: string) => dir === "/" || child === dir || child.startsWith(`${dir}/`);

/**
 * The paths both patterns match as one pattern where that is certain, `null` when they share none
 * for certain, and `undefined` when both must be kept.
 */
export function intersectPathPatterns(a: PathPattern, b: PathPattern): PathPattern | null | undefined {
  if (a.text === b.text) return a;
  if (a.literal && b.literal) return null;
  if (a.literal) return b.test(a.text) ? a : null;
  if (b.literal) return a.test(b.text) ? b : null;
  if (!within(a.base, b.base) && !within(b.base, a.base)) return null;
  if (isWholeTree(a) && within(b.base, a.base)) return b;
  if (isWholeTree(b) && within(a.base, b.base)) return a;
  return undefined;
}

/** `D/**`: everything at or below D. */
function isWholeTree(p: PathPattern): boolean {
  return p.text === `${p.base === "/" ? "" : escapeGlob(p.base)}/**`;
}

/** NAME patterns (Task, Skill): a glob over names, `review-*`; parentheses are ordinary. */
export interface NamePattern {
  readonly text: string;
  readonly literal: boolean;
  readonly re: RegExp | null;
  readonly test: (name: string) => boolean;
}

export function compileNamePattern(raw: string): Compiled<NamePattern> {
  const text = raw.trim();
  if (text === "") return { ok: false, problem: "an empty name pattern" };
  if (!GLOB_CHARS.test(text))
    return { ok: true, pattern: { text, literal: true, re: null, test: (s) => s === text } };
  const re = globRegExp(text.replace(/[()]/g, "\\$&").replace(/^!/, "\\!"));
  if (re instanceof Error) return { ok: false, problem: `not a valid glob: ${re.message}` };
  return { ok: true, pattern: { text, literal: false, re, test: (s) => re.test(s) } };
}

export function intersectNamePatterns(a: NamePattern, b: NamePattern): NamePattern | null | undefined {
  if (a.text === b.text) return a;
  if (a.literal && b.literal) return null;
  if (a.literal) return b.test(a.text) ? a : null;
  if (b.literal) return a.test(b.text) ? b : null;
  return undefined;
}
