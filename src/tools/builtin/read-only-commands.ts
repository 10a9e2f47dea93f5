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
  /**
   * Subcommands that only read when given nothing but these words (`git branch --show-current`
   * reads; `git branch x` creates a branch).
   */
  readonly onlyWith?: ReadonlyMap<string, ReadonlySet<string>>;
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
      onlyWith: new Map([
        [
          "branch",
          new Set(["--show-current", "--all", "-a", "--remotes", "-r", "--verbose", "-v", "-vv", "--list"]),
        ],
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
  return readOnlyOperands(line, shell) !== undefined;
}

/**
 * The words a read-only command line could read as paths, each as written (relative to the working
 * folder, or absolute): every operand, every value given to an option (`--file=x`, `-fx`), every
 * file a redirection reads (`< x`). Undefined: the line is not read-only (`isReadOnlyCommand`).
 * A word that is only a pattern or a number is among them too: judged as a path, it names a file
 * in the working folder, which reads nothing outside it.
 */
export function readOnlyOperands(line: unknown, shell: ShellParser): string[] | undefined {
  if (typeof line !== "string" || line.trim() === "") return undefined;
  const script = shell.parse(line);
  if (script.unreadable || script.unjudgeable || script.parts.length === 0 || script.writes.length > 0)
    return undefined;
  const reads = script.reads ?? [];
  if (reads.some((r) => r === null)) return undefined;
  const operands: string[] = [...(reads as string[])];
  for (const part of script.parts) {
    const words = readOnlyWords(part);
    if (words === undefined) return undefined;
    operands.push(...words.flatMap(operandOf));
  }
  return operands;
}

/** The words after the program (and subcommand) of a part that only reads; undefined when it may write. */
function readOnlyWords(part: ShellPart): string[] | undefined {
  if (part.assignments > 0 || part.heredoc || literalText(part) === null) return undefined;
  const [program, ...args] = part.words as string[];
  const rule = program === undefined ? undefined : READ_ONLY_PROGRAMS.get(program);
  if (!rule) return undefined;
  const sub = args[0] ?? "";
  const only = rule.onlyWith?.get(sub);
  if (only) return args.slice(1).every((a) => only.has(a)) ? [] : undefined;
  if (rule.subcommands && !rule.subcommands.has(sub)) return undefined;
  const rest = rule.subcommands ? args.slice(1) : args;
  return rule.options === undefined || !usesNamedOption(rule.options, rest) ? rest : undefined;
}

/** What of one word could name a file: an operand, an option's value (`--x=v`, `-xv`), not a bare flag. */
function operandOf(word: string): string[] {
  if (word === "-" || word === "--" || !word.startsWith("-")) return word === "--" ? [] : [word];
  const eq = word.indexOf("=");
  if (eq !== -1) return [word.slice(eq + 1)];
  if (word.startsWith("--")) return [];
  return word.length > 2 ? [word.slice(2)] : [];
}
