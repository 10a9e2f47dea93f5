/**
 * A pattern in ripgrep's syntax (Rust's regex crate) as a JavaScript regular expression, for the
 * built-in search when ripgrep is not installed: leading inline flags (`(?i)`, `(?s)`, `(?m)`,
 * `(?is)`), named groups `(?P<name>…)` and `(?P=name)`, `\A` and `\z`, and POSIX classes in
 * brackets (`[[:alpha:]]`). What has no JavaScript equal is said, not guessed.
 */
export function rustToJs(pattern: string, ignoreCase: boolean): RegExp | { error: string } {
  let source = pattern;
  const flags = new Set(ignoreCase ? ["i"] : []);
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    for (const f of lead[1] as string) {
      if (f === "U") return { error: "the flag (?U) (swap greed) needs ripgrep, which is not installed" };
      flags.add(f);
    }
    source = source.slice(lead[0].length);
  }
  if (/\(\?[imsxU-]+[:)]/.test(source))
    return {
      error: "inline flags other than at the start of the pattern need ripgrep, which is not installed",
    };
  source = source
    .replace(/\(\?P</g, "(?<")
    .replace(/\(\?P=(\w+)\)/g, "\\k<$1>")
    .replace(/\\A/g, "^")
    .replace(/\\z/g, "$")
    .replace(/\[:(\^?)(\w+):\]/g, (whole, not: string, name: string) => {
      const cls = POSIX[name];
      if (!cls) return whole;
      return not ? `^${cls}` : cls;
    });
  try {
    return new RegExp(source, [...flags].join(""));
  } catch (e) {
    return { error: (e as Error).message.replace(/^Invalid regular expression: /, "") };
  }
}

const POSIX: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\s",
  word: "\\w",
  xdigit: "0-9A-Fa-f",
  punct: "!-\\/:-@\\[-`{-~",
  blank: " \\t",
};
