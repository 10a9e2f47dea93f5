import { parseShell } from "../../permissions/shell/parse-shell.js";
import { literalText, type ShellPart } from "../../permissions/shell/shell-script.js";

/**
 * Programs that only read (and print), with the options or subcommands that would make them write
 * or run something else. Data, not code: what is not here is not read-only. It errs on the side
 * of sequential: a command is read-only only when every word of it is plain text.
 */
interface ReadOnlyRule {
  /** Options that write, delete, or run a command: their presence makes the call not read-only. */
  readonly deny?: RegExp;
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
    "file",
    "stat",
    "du",
    "df",
    "tree",
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
  ["date", { deny: /^(-s|--set)/ }],
  ["sort", { deny: /^(-o|--output|--compress-program)/ }],
  ["rg", { deny: /^(--pre|--pre-glob)/ }],
  ["find", { deny: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/ }],
  [
    "git",
    {
      deny: /^(--output|--ext-diff|--textconv|-c$|--exec-path|--config-env|--no-index)/,
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
export function isReadOnlyCommand(line: unknown): boolean {
  if (typeof line !== "string" || line.trim() === "") return false;
  const script = parseShell(line);
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
  return !(rule.deny && args.some((a) => (rule.deny as RegExp).test(a)));
}
