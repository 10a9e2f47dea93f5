import { statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";
import { splitArgs } from "../shared/shell-words.js";

const PROJECT_VARIABLE = /\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g;
/** Where a shell ends one word and starts another without a space: `a.sh;b.sh`, `x|y`. */
const OPERATORS = /[;&|()<>]+/;

/**
 * The files inside the project that a hook command names: `.claude/hooks/guard.sh`,
 * `bash ./scripts/x.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh`. Each shell word (split at
 * operators too) is taken as a path from the project folder, where hooks run; those that are
 * files inside it are the hook's scripts, whose content is the hook as much as its command is.
 * A word that only might be a path (built at run time from other variables) is not found: the
 * command itself is still in the digest. Sorted, without repeats. Contract: never throws.
 */
export function scriptsNamed(command: string, projectDir: string): string[] {
  const root = path.resolve(projectDir);
  const words = splitArgs(command.replace(PROJECT_VARIABLE, root)).flatMap((w) => w.split(OPERATORS));
  const out = new Set<string>();
  for (const word of words) {
    const bare = word.replace(/^[a-zA-Z_][a-zA-Z0-9_]*=/, "");
    if (bare === "" || bare.startsWith("-") || bare.includes("$") || bare.startsWith("~")) continue;
    const file = path.resolve(root, bare);
    if (file !== root && isInside(file, root) && isFile(file)) out.add(file);
  }
  return [...out].sort();
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
