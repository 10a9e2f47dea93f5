/**
 * Arguments of a command or skill invoked by name (`/explain src/a.ts "two words"`), and their
 * substitution into its body. FORMATS.md: `$ARGUMENTS` is the argument string as typed;
 * `$ARGUMENTS[N]` the N-th shell-split argument counting from 0; `$1`…`$9` the 1st…9th (shell
 * convention); `\$` escapes; a missing argument is the empty string; `$0` stays as written.
 */

/** Splits an argument string as a POSIX shell would split words: quotes group, backslash escapes. */
export function splitArgs(input: string): string[] {
  const out: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < input.length && /["\\$`]/.test(input[i + 1] as string))
        current += input[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < input.length) {
      current += input[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(current);
  return out;
}

/** One shell word for `value`, whatever it holds: `'it'\''s'`. */
export function shellQuote(value: string): string {
  if (value === "") return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const PLACEHOLDER = /\\\$|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])/g;

/**
 * Substitutes the arguments into `text`. With `quote`, every substituted value is one shell word
 * (for commands run from the body: an argument can never become shell syntax).
 */
export function substituteArguments(text: string, args: string, quote = false): string {
  const words = splitArgs(args);
  const q = (v: string) => (quote ? shellQuote(v) : v);
  return text.replace(PLACEHOLDER, (whole, index: string | undefined, n: string | undefined) => {
    if (whole === "\\$") return "$";
    if (index !== undefined) return q(words[Number(index)] ?? "");
    if (n !== undefined) return q(words[Number(n) - 1] ?? "");
    return quote ? words.map(shellQuote).join(" ") : args;
  });
}

/** Whether a body takes its arguments itself; otherwise they are appended as `ARGUMENTS: …`. */
export function usesArguments(body: string): boolean {
  return /(?<!\\)\$ARGUMENTS|(?<!\\)\$[1-9]/.test(body);
}
