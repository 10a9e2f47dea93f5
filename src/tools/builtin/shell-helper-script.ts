import type { ShellParser } from "../../permissions/shell/shell-parser.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { shellQuote } from "../../shared/shell-words.js";

/** Set in the helper's environment to what it needs, and put back for each command. */
export const HELPER_OWN = ["TMOUT"];
/** A command longer than this is sent to a direct start: bash reads a pipe one byte at a time. */
const MAX_REQUEST = 8192;

/**
 * A request as three lines for bash's `printf %b`: the token, the folder, the command, every byte
 * that is not printable ASCII (and every backslash) written as an escape. Undefined when the command
 * goes to a direct start instead.
 */
export function encodeRequest(cwd: string, command: string): { lines: string; token: string } | undefined {
  if (command.includes("\0") || cwd.includes("\0")) return undefined;
  const token = nodeCrypto().randomBytes(16).toString("hex");
  const lines = `${token}\n${escapeForPrintf(cwd)}\n${escapeForPrintf(command)}\n`;
  return lines.length > MAX_REQUEST ? undefined : { lines, token };
}

/** `text` for bash's `printf %b`: printable ASCII as it is, a backslash doubled, any other byte `\xHH`. */
export function escapeForPrintf(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    if (byte === 0x5c) out += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * A shell word that bash reads back as `value`, on one line (a newline in the script would shift the
 * command's line numbers): `shellQuote`'s word, or `$'…'` with escapes when it holds a control character.
 */
export function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  if (!/[\x00-\x1f\x7f]/.test(value)) return shellQuote(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  const escaped = value.replace(/[\\'\x00-\x1f\x7f]/g, (c) =>
    c === "\\" || c === "'" ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  return `$'${escaped}'`;
}

/**
 * The helper's script, one line (so that line numbers in the command's messages count from its own
 * first line, as bash -c counts). It keeps one subshell forked ahead, waiting for the next request:
 * a command's start does not wait for a fork. That subshell (a process group of its own: `set -m`)
 * reads the request, enters the folder, connects back, presents the token, sets what bash -c would
 * have set at its start, and runs the command. Lines to agentmd: `started PID` (or `nostart` when
 * the folder or the socket failed: nothing ran), then, from the helper, `exit STATUS`. When agentmd
 * closes the requests, the waiting subshell ends the helper.
 */
export function helperScript(port: number, env: Readonly<Record<string, string | undefined>>): string {
  const pwd = logicalFolder(env.PWD);
  // bash keeps OLDPWD only when it names a folder (from the one it starts in); else it is unset, exported.
  const noOldpwd = "unset OLDPWD; export OLDPWD;";
  const oldpwd =
    env.OLDPWD === undefined
      ? noOldpwd
      : `OLDPWD=${quoted(env.OLDPWD)}; [ -d "$OLDPWD" ] || { ${noOldpwd} };`;
  const own = HELPER_OWN.map((n) =>
    env[n] === undefined ? "" : `export ${n}=${quoted(env[n] as string)};`,
  ).join("");
  const command = [
    // At the end of the requests it ends the helper, if that is still its parent (not a process that took its pid).
    'IFS= read -r t && IFS= read -r d && IFS= read -r c || { read -r _ _ _ p _ </proc/$BASHPID/stat; [ "$p" = "$$" ] && kill -s TERM "$$"; exit 0; }',
    'printf -v d %b "$d"; printf -v c %b "$c"',
    `cd -P -- "$d" 2>/dev/null && exec 3<>/dev/tcp/127.0.0.1/${port} 2>/dev/null || { printf 'nostart\\n'; exit 0; }`,
    "printf 'started %s\\n' \"$BASHPID\"",
    "printf '%s\\n' \"$t\" >&3 || exit 125",
    "exec </dev/null >&3 2>&3 3>&-",
    `set +m; ${pwd} ${oldpwd} ${own} export SHLVL=${shellLevelAfterStart(env.SHLVL)}; BASH_SUBSHELL=0`,
    // `$_` starts as the environment's `_` (bash -c's own name when there is none): the last word before eval.
    `BASH_EXECUTION_STRING=$c; unset t d c; : ${quoted(env._ ?? "bash")}; eval "$BASH_EXECUTION_STRING"`,
  ].join("; ");
  // Job control is on only while the subshell is forked (its own process group), not while the helper
  // waits: with it on, `wait` would return when a command stops itself (SIGSTOP) rather than ends.
  return `while :; do set -m; ( ${command} ) & set +m; wait "$!"; printf 'exit %s\\n' "$?"; done`;
}

/**
 * `$PWD` as bash sets it at its start: the environment's PWD when it is absolute and names the same
 * folder (bash then also works from that path, so `pwd` and `cd ..` follow the link); else the
 * physical folder, which `cd -P` has already entered.
 */
function logicalFolder(pwd: string | undefined): string {
  if (pwd === undefined || !pwd.startsWith("/")) return "";
  return `[ ${quoted(pwd)} -ef . ] && { cd -L -- ${quoted(pwd)} 2>/dev/null; PWD=${quoted(pwd)}; };`;
}

/**
 * `$SHLVL` as bash sets it at its start: one more than it was (1 when it was absent or empty).
 * Undefined for any other value (a sign, spaces, not a number, 999 or more, which bash answers with
 * a warning): a command in such an environment is started directly.
 */
export function shellLevelAfterStart(level: string | undefined): number | undefined {
  if (level === undefined || level === "") return 1;
  if (!/^\d{1,3}$/.test(level)) return undefined;
  const n = Number(level) + 1;
  return n < 1000 ? n : undefined;
}

/**
 * Whether the helper can run `command` as `bash -c` would: bash (as the permission parser reads it)
 * parses it, it does not read `$$`, `$!` or `$SECONDS`, and it does not use `set -u` or `${x?}`. Pure.
 */
export function helperCanRun(command: string, shell: ShellParser): boolean {
  if (/\$\{?\$/.test(command)) return false;
  // `$SECONDS` counts from the helper's start (setting it would list it in `set` where bash -c does not).
  if (/\bSECONDS\b/.test(command)) return false;
  // `$!` is the helper's last subshell until the command starts a job of its own.
  if (/\$(?:!|\{!(?![\w@*#]))/.test(command)) return false;
  // An unset variable under `set -u`, or `${x?}`, ends bash -c with 127 but a subshell with 1.
  if (/nounset|\bset\b[^\n;|&]*\s-[a-zA-Z]*u|\$\{[^}]*\?/.test(command)) return false;
  // A line of plain words is read without the grammar: one with a reserved word (`if then`, `}`) or a
  // case's `;;` may not parse; bash -c reads a line that starts with - or + as its own option.
  if (command.split(/[\s;&|()<>]+/).some((word) => RESERVED.has(word)) || /;;|;&|^[-+]/.test(command))
    return false;
  return shell.parse(command).unreadable === undefined;
}

const RESERVED = new Set(
  "if then else elif fi case esac for select while until do done in function time coproc { } ! [[ ]]".split(
    " ",
  ),
);
