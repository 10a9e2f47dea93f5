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
 * Substitutes the arguments into `text`. With `quote` (for commands run from the body), each value
 * is escaped for where it stands in the command line: a shell word outside quotes, backslash-escaped
 * inside double quotes, `'\\''`-escaped inside single quotes. An argument can never become shell
 * syntax, wherever its placeholder stands.
 */
export function substituteArguments(text: string, args: string, quote = false): string {
  const words = splitArgs(args);
  if (!quote) {
    return text.replace(PLACEHOLDER, (whole, index: string | undefined, n: string | undefined) => {
      if (whole === "\\$") return "$";
      if (index !== undefined) return words[Number(index)] ?? "";
      if (n !== undefined) return words[Number(n) - 1] ?? "";
      return args;
    });
  }
  let out = "";
  let state: "none" | "single" | "double" = "none";
  const escapeFor = (v: string, all: boolean): string => {
    if (state === "double") return v.replace(/[\\"$`]/g, "\\$&");
    if (state === "single") return v.replace(/'/g, `'\\''`);
    return all ? words.map(shellQuote).join(" ") : shellQuote(v);
  };
  const sticky = new RegExp(PLACEHOLDER.source, "y");
  for (let i = 0; i < text.length; ) {
    sticky.lastIndex = i;
    const m = sticky.exec(text);
    if (m) {
      const [whole, index, n] = m;
      if (whole === "\\$") out += "$";
      else if (index !== undefined) out += escapeFor(words[Number(index)] ?? "", false);
      else if (n !== undefined) out += escapeFor(words[Number(n) - 1] ?? "", false);
      else out += escapeFor(args, true);
      i += whole.length;
      continue;
    }
    const ch = text[i] as string;
    out += ch;
    i++;
    if (ch === "\\" && state !== "single" && i < text.length) {
      out += text[i];
      i++;
    } else if (ch === "'" && state !== "double") state = state === "single" ? "none" : "single";
    else if (ch === '"' && state !== "single") state = state === "double" ? "none" : "double";
  }
  return out;
}

/** Whether a body takes its arguments itself; otherwise they are appended as `ARGUMENTS: …`. */
export function usesArguments(body: string): boolean {
  return /(?<!\\)\$ARGUMENTS|(?<!\\)\$[1-9]/.test(body);
}
