import { existsSync } from "node:fs";
import path from "node:path";
import type { ToolEntry } from "../definitions/types.js";
import type { Hooks } from "../loop/hooks.js";
import { PROTECTED_PATHS } from "../permissions/denial-text.js";
import { isInside } from "../shared/is-inside.js";
import { splitArgs } from "../shared/shell-words.js";

/**
 * The files that define a run, which no run may rewrite unless a list names them: otherwise a Write
 * (or a sandboxed command) could change agent.md, a settings file, a custom tool or a hook script,
 * and the next call's hook or the next run would run the new code outside every guard. Relative
 * to the project folder; a trailing `/` marks a folder.
 */
const DEFINING = [
  "agent.md",
  "agents/",
  "skills/",
  "commands/",
  "tools/",
  ".claude/",
  ".mcp.json",
  "CLAUDE.md",
  "CLAUDE.local.md",
  ".git/hooks/",
  ".git/config",
];

/** The tools that write a path: the protection binds each of them (and Bash's redirections, judged as Writes). */
const WRITERS = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/** A protected path, absolute; `folder` when everything below it is protected too. */
export interface ProtectedPath {
  readonly path: string;
  readonly folder: boolean;
  readonly why: string;
}

/** The protected paths of a project: the defining files and every script inside it a hook command names. */
export function protectedPaths(projectDir: string, hooks: Hooks | undefined): ProtectedPath[] {
  const root = path.resolve(projectDir);
  const out: ProtectedPath[] = DEFINING.map((p) => ({
    path: path.join(root, p.replace(/\/$/, "")),
    folder: p.endsWith("/"),
    why: "it defines the project's runs",
  }));
  for (const script of hookScripts(root, hooks))
    if (!out.some((p) => p.path === script || (p.folder && isInside(script, p.path))))
      out.push({ path: script, folder: false, why: "a hook runs it" });
  return out;
}

/** Files inside the project that a command hook's words name (`bash .claude/hooks/g.sh`, `$CLAUDE_PROJECT_DIR/x.sh`). */
export function hookScripts(projectDir: string, hooks: Hooks | undefined): string[] {
  const found = new Set<string>();
  for (const hook of Object.values(hooks ?? {}).flat()) {
    if (!("command" in hook) || typeof hook.command !== "string") continue;
    let words: string[];
    try {
      words = splitArgs(hook.command.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, projectDir));
    } catch {
      continue;
    }
    for (const w of words) {
      if (w.startsWith("-") || !/[/.]/.test(w)) continue;
      const abs = path.resolve(projectDir, w);
      if (abs !== projectDir && isInside(abs, projectDir) && existsSync(abs)) found.add(abs);
    }
  }
  return [...found];
}

/**
 * Deny entries that keep the writing tools off the protected paths no allow entry names
 * explicitly. An entry names a path when the literal part of its pattern (up to the first
 * wildcard) lies inside it: `Write(.claude/settings.json)` and `Edit(agents/**)` name theirs;
 * `Write`, `Write(**)` and `Write(/proj/**)` name none. Deny rules bind every hop below, so a
 * subagent's own list cannot lift what its caller's did not.
 */
export function protectedWriteDenies(
  protectedList: readonly ProtectedPath[],
  explicit: readonly ToolEntry[],
  ctx: { readonly projectDir: string; readonly home: string },
): ToolEntry[] {
  const named = explicit
    .filter((e) => WRITERS.includes(e.name) && e.pattern !== undefined)
    .map((e) => literalPrefix(e.pattern as string, ctx))
    .filter((p): p is string => p !== undefined);
  const out: ToolEntry[] = [];
  for (const p of protectedList) {
    if (named.some((n) => isInside(n, p.path))) continue;
    const rel = path.relative(ctx.projectDir, p.path) || ".";
    const at = { file: PROTECTED_PATHS, line: 1, column: 1 };
    for (const name of WRITERS) {
      out.push({ name, pattern: p.path, raw: `${name}(${rel})`, at });
      if (p.folder) out.push({ name, pattern: `${p.path}/**`, raw: `${name}(${rel}/**)`, at });
    }
  }
  return out;
}

/** The absolute path a path pattern's text names before its first wildcard; undefined for none. */
function literalPrefix(
  pattern: string,
  ctx: { readonly projectDir: string; readonly home: string },
): string | undefined {
  const text = pattern
    .replace(/^\/\//, "/")
    .replace(/^~(?=\/|$)/, ctx.home)
    .replace(/\$\{(PROJECT_DIR|CLAUDE_PROJECT_DIR)\}/g, ctx.projectDir);
  const wild = text.search(/[*?[{]/);
  const literal = wild === -1 ? text : text.slice(0, text.lastIndexOf("/", wild) + 1);
  if (literal === "" || literal === "/") return undefined;
  return path.resolve(ctx.projectDir, literal);
}
