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
  /** Paths read by redirections (`< in`), as written; `null` when not plain text. Absent: none. */
  readonly reads?: readonly (string | null)[];
  /** Why the line cannot be read at all (a parse error); then `parts` is empty. */
  readonly unreadable?: string;
  /** Why the line cannot be judged where any pattern applies: bash evaluates a value of it again. */
  readonly unjudgeable?: string;
  /**
   * The index in `writes` of the first redirection that follows a command that may change the
   * working folder (`cd`): a relative path from there on is not known to be where it looks.
   */
  readonly movedFrom?: number;
  /**
   * Why the line may open a network connection by bash itself: a redirection to or from
   * `/dev/tcp/…` or `/dev/udp/…`, or from a path that is not plain text.
   */
  readonly network?: string;
}

/** An assignment word whose value is not plain text: `NAME=` then this (no shell word holds a NUL). */
export const UNKNOWN_VALUE = "\0";

/** Characters that make the shell do nothing but split words on spaces (and the space itself). */
const PLAIN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:,@%+=")
  PLAIN[c.charCodeAt(0)] = 1;

/**
 * The common case without a parser: a line of plain words (no quotes, no expansion, no operator),
 * read in one pass. Undefined when the line needs the real parser.
 */
export function plainScript(line: string): ShellScript | undefined {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) {
      if (start >= 0) words.push(line.slice(start, i));
      start = -1;
    } else if (c > 127 || PLAIN[c] === 0) {
      return undefined;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) words.push(line.slice(start));
  if (words.length === 0) return { parts: [], writes: [] };
  let assignments = 0;
  while (assignments < words.length && isAssignment(words[assignments] as string)) assignments++;
  return { parts: [{ words, assignments, source: line.trim(), heredoc: false }], writes: [] };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `NAME=value`: a name of letters, digits and `_` (not starting with a digit), then `=`. */
function isAssignment(word: string): boolean {
  const eq = word.indexOf("=");
  return eq > 0 && ASSIGNMENT.test(word);
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
