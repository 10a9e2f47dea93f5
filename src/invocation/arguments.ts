/**
 * Arguments of a command or skill invoked by name (`/explain src/a.ts "two words"`), and their
 * substitution into its body (docs/formats.md): `$ARGUMENTS` is the argument string as typed;
 * `$ARGUMENTS[N]` the N-th shell-split argument counting from 0; `$1`…`$9` the 1st…9th (shell
 * convention); `\$` escapes; a missing argument is the empty string; `$0` stays as written.
 */

import type { QuoteContext, ShellParser } from "../permissions/shell/shell-parser.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import { shellQuote, splitArgs } from "../shared/shell-words.js";

export { shellQuote, splitArgs };

const PLACEHOLDER = /\\\$|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])/g;

/** Substitutes the arguments into body text (not a command line: see `quoteIntoCommand`). */
export function substituteArguments(text: string, args: string): string {
  const words = splitArgs(args);
  return text.replace(PLACEHOLDER, (whole, index: string | undefined, n: string | undefined) => {
    if (whole === "\\$") return "$";
    if (index !== undefined) return words[Number(index)] ?? "";
    if (n !== undefined) return words[Number(n) - 1] ?? "";
    return args;
  });
}

/** Whether a body takes its arguments itself; otherwise they are appended as `ARGUMENTS: …`. */
export function usesArguments(body: string): boolean {
  return /(?<!\\)\$ARGUMENTS|(?<!\\)\$[1-9]/.test(body);
}

/**
 * The arguments put into a command line from a body (`` !`git log -- $1` ``), each escaped for where
 * it stands as the shell parser reads the line: a shell word where plain (also inside `"$( … )"`),
 * backslash-escaped inside double quotes, `'\''`-escaped inside single quotes. An argument can never
 * become shell syntax. Refused when the line cannot be parsed, or a value with a newline would go
 * into a here-document (it could end it).
 */
export function quoteIntoCommand(
  command: string,
  args: string,
  shell: ShellParser,
): { readonly ok: true; readonly command: string } | { readonly ok: false; readonly why: string } {
  const words = splitArgs(args);
  const values: { all: boolean; value: string }[] = [];
  const marker = `AGENTMDARG${nodeCrypto().randomBytes(6).toString("hex")}N`;
  const template = command.replace(PLACEHOLDER, (whole, index: string | undefined, n: string | undefined) => {
    if (whole === "\\$") return "$";
    const value =
      index !== undefined
        ? (words[Number(index)] ?? "")
        : n !== undefined
          ? (words[Number(n) - 1] ?? "")
          : args;
    values.push({ all: index === undefined && n === undefined, value });
    return `${marker}${values.length - 1}X`;
  });
  if (values.length === 0) return { ok: true, command: template };
  const spans: [number, number][] = [];
  const found = new RegExp(`${marker}(\\d+)X`, "g");
  for (const m of template.matchAll(found)) spans.push([m.index, m.index + m[0].length]);
  const contexts = shell.quoting(template, spans);
  if (!contexts)
    return {
      ok: false,
      why: "the command cannot be parsed as bash, so its arguments cannot be quoted safely",
    };
  let i = 0;
  let problem: string | undefined;
  const out = template.replace(found, (_, k: string) => {
    const v = values[Number(k)] as { all: boolean; value: string };
    const context = contexts[i++] as QuoteContext;
    if ((context === "heredoc" || context === "literal-heredoc") && v.value.includes("\n"))
      problem ??= "an argument with a line break would go into a here-document";
    return escapeFor(context, v.value, v.all ? words : undefined);
  });
  return problem ? { ok: false, why: problem } : { ok: true, command: out };
}

function escapeFor(context: QuoteContext, value: string, all: readonly string[] | undefined): string {
  switch (context) {
    case "double":
    case "heredoc":
      return value.replace(/[\\"$`]/g, "\\$&");
    case "single":
      return value.replace(/'/g, `'\\''`);
    case "ansi":
      return value.replace(/[\\']/g, "\\$&");
    case "literal-heredoc":
      return value;
    default:
      return all ? all.map(shellQuote).join(" ") : shellQuote(value);
  }
}
