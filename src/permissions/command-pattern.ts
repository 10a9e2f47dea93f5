import { splitArgs } from "../shared/shell-words.js";
import { baseName, DANGEROUS_VARIABLE, runsCommands } from "./command-runners.js";
import { gitGlobals } from "./git-commands.js";
import type { ShellPart } from "./shell/shell-script.js";

export { baseName, evadesDeny, isInterpreter, unwrap } from "./command-runners.js";

/**
 * COMMAND patterns (Bash): `npm install` matches exactly that command; `git:*` and `git *` match
 * `git` alone or followed by anything (`git status`, not `gitk`); `*` alone matches every command.
 * A `*` anywhere else cannot be interpreted. Patterns and commands are compared word by word, as
 * the shell splits them (quotes removed), one simple command at a time: a compound line is allowed
 * only when each of its commands is.
 */
export type CommandPattern =
  | { readonly kind: "exact"; readonly text: string; readonly words: readonly string[] }
  | { readonly kind: "prefix"; readonly text: string; readonly words: readonly string[] };

export type Compiled<T> = { ok: true; pattern: T } | { ok: false; problem: string };

export function normaliseCommand(s: string): string {
  const t = s.trim();
  return /\s\s|[\t\n\r\f\v]/.test(t) ? t.replace(/\s+/g, " ") : t;
}

const STAR_PROBLEM = "a '*' is a wildcard only at the very end, as ':*' or ' *'";

export function compileCommandPattern(raw: string): Compiled<CommandPattern> {
  const text = normaliseCommand(raw);
  if (text === "*") return { ok: true, pattern: { kind: "prefix", text: "", words: [] } };
  let prefix: string | undefined;
  if (text.endsWith(":*")) prefix = text.slice(0, -2).trimEnd();
  else if (text.endsWith(" *")) prefix = text.slice(0, -2).trimEnd();
  const body = prefix ?? text;
  if (body.includes("*")) return { ok: false, problem: STAR_PROBLEM };
  const words = splitArgs(body);
  if (words.length === 0) return { ok: false, problem: "an empty command pattern" };
  return { ok: true, pattern: { kind: prefix === undefined ? "exact" : "prefix", text: body, words } };
}

/** Whether the pattern's words are the command's first words (all of them, for an exact pattern). */
export function matchWords(p: CommandPattern, words: readonly (string | null)[]): boolean {
  if (p.kind === "exact" ? words.length !== p.words.length : words.length < Math.max(1, p.words.length))
    return false;
  for (let i = 0; i < p.words.length; i++) if (words[i] !== p.words[i]) return false;
  return true;
}

/**
 * The commands both patterns match, as one pattern, or null when there are none. Always exact:
 * two exact or prefix patterns intersect to one of them or to nothing.
 */
export function intersectCommandPatterns(a: CommandPattern, b: CommandPattern): CommandPattern | null {
  if (a.kind === "exact" && b.kind === "exact") return matchWords(a, b.words) ? a : null;
  if (a.kind === "exact") return matchWords(b, a.words) ? a : null;
  if (b.kind === "exact") return matchWords(a, b.words) ? b : null;
  if (a.words.length <= b.words.length && b.words.length > 0 && matchWords(a, b.words)) return b;
  if (b.words.length <= a.words.length && a.words.length > 0 && matchWords(b, a.words)) return a;
  if (a.words.length === 0) return b;
  if (b.words.length === 0) return a;
  return null;
}

/** Why a part cannot be judged whenever any Bash pattern applies, if it cannot. */
export function unjudgeable(part: ShellPart, interpreter: (program: string) => boolean): string | undefined {
  for (let i = 0; i < part.assignments; i++) {
    const a = part.words[i];
    if (a === null || a === undefined) return "an assignment's value is not plain text";
    if (DANGEROUS_VARIABLE.test(a))
      return `it sets ${a.slice(0, a.indexOf("="))}, which changes what programs run`;
  }
  if (part.assignments === part.words.length) return undefined;
  const program = part.words[part.assignments];
  if (program === null || program === undefined)
    return "its program is not plain text (the shell expands it)";
  const name = baseName(program);
  if (name === "eval") return "'eval' runs a command built at run time";
  if (part.heredoc && (runsCommands(name) || interpreter(name)))
    return `a here-document feeds code to '${name}'`;
  const evaluated = evaluatesNames(name, part.words.slice(part.assignments + 1));
  if (evaluated) return evaluated;
  if (
    name === "export" ||
    name === "declare" ||
    name === "typeset" ||
    name === "readonly" ||
    name === "local"
  ) {
    const set = part.words
      .slice(1)
      .find((w) => w === null || (w !== undefined && DANGEROUS_VARIABLE.test(w)));
    if (set !== undefined)
      return set === null
        ? "it sets a variable to a value that is not plain text"
        : `it sets ${set.slice(0, set.indexOf("="))}, which changes what programs run`;
  }
  return undefined;
}

/** Builtins that take variable names: a name with an array index (`a[$(rm v)]`) evaluates the index. */
const NAME_TAKERS = new Set(
  "read unset declare typeset local export readonly getopts mapfile readarray wait".split(" "),
);

/**
 * Why a builtin would evaluate a value as arithmetic or as a variable's name, which runs a command
 * substitution in an array index held in it (`a='x[$(rm v)]'`), if it would.
 */
function evaluatesNames(name: string, args: readonly (string | null)[]): string | undefined {
  if (name === "let") return "'let' evaluates arithmetic, which can run a command held in a variable";
  if ((name === "test" || name === "[") && args.some((a) => a === "-v" || a === "-R"))
    return `'${name} -v' evaluates an array index in a variable's name`;
  if (name === "printf" && args.some((a) => a === null || a.startsWith("-v")))
    return "'printf -v' assigns to a name that may evaluate an array index";
  if (
    (name === "declare" || name === "typeset" || name === "local") &&
    args.some((a) => a !== null && /^[-+][a-zA-Z]*[in]/.test(a))
  )
    return `'${name} -i' or '-n' makes bash evaluate the values it is given`;
  if (NAME_TAKERS.has(name) && args.some((a) => a === null || (a.split("=")[0] as string).includes("[")))
    return `'${name}' is given a variable name that is not plain, or that has an array index`;
  return undefined;
}

/**
 * Whether a deny pattern catches a command (its words without prefix assignments): compared with
 * the program's folder dropped, and for `git` without its options before the subcommand (`git -C .
 * push` is `git push`). A word that is not plain text where the pattern has one is "unsure", and
 * counts as caught; so does `prog --opt value sub` against `prog sub`, where an option's value
 * cannot be told from a subcommand.
 */
export function denyMatch(
  p: CommandPattern,
  words: readonly (string | null)[],
  name: string | null | undefined = words[0] === undefined
    ? undefined
    : words[0] === null
      ? null
      : baseName(words[0]),
): "yes" | "no" | "unsure" {
  if (name === undefined) return "no";
  if (p.words.length === 0) return "yes";
  if (name !== null && name !== p.words[0]) return "no";
  let m = matchFrom(p, name, words, 1);
  if (m === "yes") return m;
  if (name === "git") {
    const { rest } = gitGlobals(words);
    if (rest > 1) {
      const g = matchFrom(p, name, words, rest);
      if (g === "yes") return g;
      if (g === "unsure") m = g;
    }
  }
  if (m === "no" && p.words.length >= 2 && words[1]?.startsWith("-")) {
    const later = words.slice(1);
    if (p.words.slice(1).every((w) => later.includes(w))) return "unsure";
  }
  return m;
}

/** The pattern against `program words[from…]`. */
function matchFrom(
  p: CommandPattern,
  program: string | null,
  words: readonly (string | null)[],
  from: number,
): "yes" | "no" | "unsure" {
  const n = 1 + words.length - from;
  if (p.kind === "exact" ? n !== p.words.length : n < p.words.length) return "no";
  let unsure = program === null;
  for (let i = 1; i < p.words.length; i++) {
    const w = words[from + i - 1];
    if (w === null) unsure = true;
    else if (w !== p.words[i]) return "no";
  }
  return unsure ? "unsure" : "yes";
}
