import { type OptionRule, usesNamedOption } from "../../permissions/shell/option-rule.js";
import type { ShellParser } from "../../permissions/shell/shell-parser.js";
import { literalText, type ShellPart } from "../../permissions/shell/shell-script.js";

/**
 * Programs that only read (and print), with the options or subcommands that would make them write
 * or run something else. Data, not code: what is not here is not read-only. It errs on the side
 * of sequential: a command is read-only only when every word of it is plain text.
 */
interface ReadOnlyRule {
  /** Options that write, delete, or run a command, in every spelling (see permissions/shell/option-rule.ts). */
  readonly options?: OptionRule;
  /** For programs with subcommands (git): the read-only ones; anything else is not read-only. */
  readonly subcommands?: ReadonlySet<string>;
}

const ANY: ReadOnlyRule = {};

export const READ_ONLY_PROGRAMS: ReadonlyMap<string, ReadOnlyRule> = new Map<string, ReadOnlyRule>([
  ...[
    "true",
    "false",
    ":",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "which",
    "whoami",
    "id",
    "uname",
    "stat",
    "du",
    "df",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "printenv",
    "cut",
    "tr",
    "nl",
    "od",
    "diff",
    "cmp",
    "comm",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "grep",
    "egrep",
    "fgrep",
    "jq",
  ].map((p) => [p, ANY] as const),
  ["date", { options: { long: ["set"], short: "s", shortValue: "dfrI" } }],
  [
    "sort",
    {
      options: {
        long: ["output", "compress-program", "temporary-directory"],
        short: "oT",
        shortValue: "ktSy",
      },
    },
  ],
  // `-C` compiles a magic file (writes); `-z`/`-Z` may start decompressors.
  [
    "file",
    {
      options: { long: ["compile", "uncompress", "uncompress-noreport"], short: "CzZ", shortValue: "efFmP" },
    },
  ],
  // `-o` writes the listing to a file; `-R` writes an HTML page per folder.
  ["tree", { options: { long: ["output", "fromfile"], short: "oR", shortValue: "LPIHT" } }],
  [
    "rg",
    {
      options: {
        long: ["pre", "pre-glob", "search-zip", "hostname-bin"],
        short: "z",
        shortValue: "ABCefgjmMrtTEd",
      },
    },
  ],
  [
    "find",
    {
      options: {
        words: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
      },
    },
  ],
  [
    "git",
    {
      options: {
        long: [
          "output",
          "output-directory",
          "ext-diff",
          "textconv",
          "filters",
          "exec-path",
          "config-env",
          "no-index",
          "open-files-in-pager",
          "upload-pack",
        ],
        short: "c",
      },
      subcommands: new Set([
        "status",
        "log",
        "diff",
        "show",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "blame",
        "describe",
        "shortlog",
        "cat-file",
      ]),
    },
  ],
]);

/**
 * Whether a command line only reads: every simple command in it (a pipeline's, a list's) is a
 * program of READ_ONLY_PROGRAMS with nothing that writes, no redirection writes a file, no
 * assignment, and every word is plain text. Such calls may run beside each other in a batch.
 */
export function isReadOnlyCommand(line: unknown, shell: ShellParser): boolean {
  if (typeof line !== "string" || line.trim() === "") return false;
  const script = shell.parse(line);
  if (script.unreadable || script.unjudgeable || script.parts.length === 0 || script.writes.length > 0)
    return false;
  return script.parts.every(readOnlyPart);
}

function readOnlyPart(part: ShellPart): boolean {
  if (part.assignments > 0 || part.heredoc || literalText(part) === null) return false;
  const [program, ...args] = part.words as string[];
  const rule = program === undefined ? undefined : READ_ONLY_PROGRAMS.get(program);
  if (!rule) return false;
  if (rule.subcommands && !rule.subcommands.has(args[0] ?? "")) return false;
  const rest = rule.subcommands ? args.slice(1) : args;
  return rule.options === undefined || !usesNamedOption(rule.options, rest);
}
