/**
 * A command line read for what it names, never run: its simple commands and their words, split as a
 * shell splits them (quotes group, `;`, `&`, `|`, newlines, parentheses and backticks end a
 * command, `<`/`>` a word). A `$( … )` or a backtick span is read as a command of its own. Known
 * variables (the project's folder, a plugin's root) are put in first; any other `$` is left in the
 * word, which then cannot be a path known before the line runs. Pure; never throws.
 */

export interface SimpleCommand {
  /** Its words, `NAME=value` assignments first; redirection targets are in `reads`/`writes`, not here. */
  readonly words: readonly string[];
  /** Files its input is redirected from (`< file`). */
  readonly reads: readonly string[];
  /** The command that takes its output through a pipe, if any (`curl … | sh`: sh). */
  readonly pipedTo?: number;
  /** The span was inside `$( … )` or backticks: its output becomes words of another command. */
  readonly substituted: boolean;
}

/** A marker for a known variable's value while words are split (no shell word holds it). */
const MARK = "\u0001";

/**
 * The simple commands of `line`, with each known variable (`${NAME}` or `$NAME`) put in as its
 * value even where that value holds spaces.
 */
export function commandsOf(line: string, known: Readonly<Record<string, string>> = {}): SimpleCommand[] {
  const values: string[] = [];
  let text = line;
  for (const [name, value] of Object.entries(known)) {
    const re = new RegExp(`\\$\\{${name}\\}|\\$${name}(?![A-Za-z0-9_])`, "g");
    text = text.replace(re, () => {
      values.push(value);
      return `${MARK}${values.length - 1}${MARK}`;
    });
  }
  const marked = new RegExp(`${MARK}(\\d+)${MARK}`, "g");
  const put = (w: string) => w.replace(marked, (_, i: string) => values[Number(i)] ?? "");
  return split(text).map((c) => ({ ...c, words: c.words.map(put), reads: c.reads.map(put) }));
}

interface Building {
  words: string[];
  reads: string[];
  pipedTo?: number;
  substituted: boolean;
}

/** An open `$(` or backtick: the command and word around it, and the quote it sits in. */
interface Frame {
  readonly cmd: Building;
  readonly word: string;
  readonly quote: string | undefined;
  readonly close: string;
}

function split(text: string): SimpleCommand[] {
  const done: Building[] = [];
  const stack: Frame[] = [];
  let cur: Building = { words: [], reads: [], substituted: false };
  let word = "";
  let inWord = false;
  let quote: string | undefined;
  let readNext = false;
  let pipe = false;
  const endWord = () => {
    if (inWord) (readNext ? cur.reads : cur.words).push(word);
    if (inWord) readNext = false;
    word = "";
    inWord = false;
  };
  const endCommand = (piped: boolean) => {
    endWord();
    const some = cur.words.length > 0 || cur.reads.length > 0;
    if (some) {
      done.push(cur);
      if (pipe && done.length > 1) (done[done.length - 2] as Building).pipedTo = done.length - 1;
    }
    pipe = piped && some;
    cur = { words: [], reads: [], substituted: stack.length > 0 };
    readNext = false;
  };
  // A substitution is a command of its own; the word it sits in is built at run time (`$`).
  const open = (close: string) => {
    stack.push({ cmd: cur, word: `${word}$`, quote, close });
    cur = { words: [], reads: [], substituted: true };
    word = "";
    inWord = false;
    quote = undefined;
  };
  const shut = () => {
    endCommand(false);
    const frame = stack.pop() as Frame;
    cur = frame.cmd;
    word = frame.word;
    quote = frame.quote;
    inWord = true;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const top = stack[stack.length - 1];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (ch === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (ch === "$" && text[i + 1] === "(" && text[i + 2] !== "(") {
      open(")");
      i++;
    } else if (ch === "`") {
      if (top?.close === "`" && quote === undefined) shut();
      else open("`");
    } else if (ch === ")" && top?.close === ")" && quote === undefined) {
      shut();
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "|" && text[i + 1] !== "|") {
      endCommand(true);
    } else if (/[;&|()\n]/.test(ch)) {
      endCommand(false);
    } else if (ch === "<" || ch === ">") {
      endWord();
      while (/[<>&|]/.test(text[i + 1] ?? "")) i++;
      // `< file` is read; `> file` is written (the permission judges see to writes): not an argument.
      readNext = ch === "<";
      if (ch === ">") {
        while (/\s/.test(text[i + 1] ?? "")) i++;
        while (i + 1 < text.length && !/[\s;&|()<>]/.test(text[i + 1] as string)) i++;
      }
    } else if (/\s/.test(ch)) {
      endWord();
    } else {
      word += ch;
      inWord = true;
    }
  }
  while (stack.length > 0) shut();
  endCommand(false);
  return done.map((b) => ({
    words: b.words,
    reads: b.reads,
    substituted: b.substituted,
    ...(b.pipedTo !== undefined && { pipedTo: b.pipedTo }),
  }));
}

/** `NAME=value` prefix assignments. */
export function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
}
