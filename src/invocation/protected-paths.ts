import path from "node:path";
import type { ToolEntry } from "../definitions/types.js";
import { PROTECTED_PATHS } from "../permissions/denial-text.js";
import { isInside } from "../shared/is-inside.js";
import type { ProtectedPath } from "../trust/inventory/inventory-of.js";

export type { ProtectedPath } from "../trust/inventory/inventory-of.js";

/** The tools that write a path: the protection binds each of them (and Bash's redirections, judged as Writes). */
const WRITERS = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

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
