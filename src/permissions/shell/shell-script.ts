/**
 * A command line as the permission engine judges it: the simple commands it runs (every one, at
 * any depth: pipelines, lists, subshells, `$( … )`, backticks, `<( … )`, function bodies, loops) and
 * the files its redirections write. Words that the shell would expand (a variable, a glob, a
 * command substitution, `~`, a brace) are `null`: their value cannot be known before it runs.
 */
export interface ShellPart {
  /**
   * The words of the command, its `NAME=value` prefix assignments first (an assignment whose value
   * is not plain text ends in `UNKNOWN_VALUE`).
   */
  readonly words: readonly (string | null)[];
  /** How many leading words are `NAME=value` assignments (a statement of assignments only has no program). */
  readonly assignments: number;
  /** The part as written, for messages. */
  readonly source: string;
  /** Fed a heredoc or here-string on standard input. */
  readonly heredoc: boolean;
}

export interface ShellScript {
  readonly parts: readonly ShellPart[];
  /** Paths written by redirections (`>`, `>>`, `&>`, `>|`, `<>`), as written; `null` when not plain text. */
  readonly writes: readonly (string | null)[];
  /** Why the line cannot be read at all (a parse error); then `parts` is empty. */
  readonly unreadable?: string;
}

/** An assignment word whose value is not plain text: `NAME=` then this (no shell word holds a NUL). */
export const UNKNOWN_VALUE = "\0";

/** Characters that make the shell do nothing but split words on spaces. */
const PLAIN = /^[A-Za-z0-9_\-./:,@%+= ]+$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The common case without a parser: a line of plain words (no quotes, no expansion, no operator).
 * Undefined when the line needs the real parser.
 */
export function plainScript(line: string): ShellScript | undefined {
  if (!PLAIN.test(line)) return undefined;
  const words = line.split(" ").filter((w) => w !== "");
  if (words.length === 0) return { parts: [], writes: [] };
  let assignments = 0;
  while (assignments < words.length && ASSIGNMENT.test(words[assignments] as string)) assignments++;
  return { parts: [{ words, assignments, source: words.join(" "), heredoc: false }], writes: [] };
}

/** A part's program: the first word after its assignments (`undefined` for assignments only). */
export function programOf(part: ShellPart): string | null | undefined {
  return part.assignments < part.words.length ? part.words[part.assignments] : undefined;
}

/** The part's words as one line, or null when one of them is not plain text. */
export function literalText(part: ShellPart): string | null {
  let out = "";
  for (let i = 0; i < part.words.length; i++) {
    const w = part.words[i];
    if (w === null || w === undefined) return null;
    out += i === 0 ? w : ` ${w}`;
  }
  return out;
}
