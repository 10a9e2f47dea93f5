/**
 * COMMAND patterns (Bash): `npm install` matches exactly that command; `git:*` and `git *` match
 * `git` alone or followed by whitespace and anything (`git status`, not `gitk`); `*` alone matches
 * every command. A `*` anywhere else cannot be interpreted. Runs of whitespace count as one space.
 * A candidate holding a shell metacharacter is never matched by a pattern: it could run more than
 * the pattern names.
 */
export type CommandPattern =
  | { readonly kind: "exact"; readonly text: string }
  | { readonly kind: "prefix"; readonly text: string };

export type Compiled<T> = { ok: true; pattern: T } | { ok: false; problem: string };

const METACHARACTERS = /[;|&`$><()\n\r]/;

export function hasShellMetacharacter(candidate: string): boolean {
  return METACHARACTERS.test(candidate);
}

export function normaliseCommand(s: string): string {
  const t = s.trim();
  return /\s\s|[\t\n\r\f\v]/.test(t) ? t.replace(/\s+/g, " ") : t;
}

export function compileCommandPattern(raw: string): Compiled<CommandPattern> {
  const text = normaliseCommand(raw);
  if (text === "*") return { ok: true, pattern: { kind: "prefix", text: "" } };
  let prefix: string | undefined;
  if (text.endsWith(":*")) prefix = text.slice(0, -2).trimEnd();
  else if (text.endsWith(" *")) prefix = text.slice(0, -2).trimEnd();
  if (prefix !== undefined) {
    if (prefix.includes("*"))
      return { ok: false, problem: "a '*' is a wildcard only at the very end, as ':*' or ' *'" };
    return { ok: true, pattern: { kind: "prefix", text: prefix } };
  }
  if (text.includes("*"))
    return { ok: false, problem: "a '*' is a wildcard only at the very end, as ':*' or ' *'" };
  return { ok: true, pattern: { kind: "exact", text } };
}

/** Whether a normalised, metacharacter-free candidate matches. */
export function matchCommand(p: CommandPattern, candidate: string): boolean {
  if (p.kind === "exact") return candidate === p.text;
  if (p.text === "") return candidate !== "";
  return hasWordPrefix(candidate, p.text);
}

/** `git` is a word prefix of `git` and `git status`, not of `gitk`. */
export function hasWordPrefix(candidate: string, prefix: string): boolean {
  return candidate.length === prefix.length
    ? candidate === prefix
    : candidate.startsWith(prefix) && candidate.charCodeAt(prefix.length) === 32;
}

/**
 * The commands both patterns match, as one pattern, or null when there are none. Always exact:
 * two exact or prefix patterns intersect to one of them or to nothing.
 */
export function intersectCommandPatterns(a: CommandPattern, b: CommandPattern): CommandPattern | null {
  if (a.kind === "exact" && b.kind === "exact") return a.text === b.text ? a : null;
  if (a.kind === "exact") return matchCommand(b, a.text) ? a : null;
  if (b.kind === "exact") return matchCommand(a, b.text) ? b : null;
  if (a.text === "" || (b.text !== "" && matchCommand(a, b.text))) return b;
  if (b.text === "" || matchCommand(b, a.text)) return a;
  return null;
}

/**
 * Programs that run another command given to them (`sudo curl x`, `env -u X curl x`, `timeout 5 curl
 * x`, `bash -c "curl x"`, `eval`, `xargs`): which command that is cannot be read off the line
 * reliably, so a deny pattern cannot rule it out.
 */
const RUNNERS = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "csh",
  "tcsh",
  "busybox",
  "env",
  "sudo",
  "doas",
  "su",
  "runuser",
  "sg",
  "newgrp",
  "chroot",
  "unshare",
  "nsenter",
  "ssh",
  "exec",
  "eval",
  "command",
  "builtin",
  "source",
  ".",
  "nice",
  "ionice",
  "nohup",
  "timeout",
  "stdbuf",
  "setsid",
  "taskset",
  "chrt",
  "numactl",
  "flock",
  "strace",
  "ltrace",
  "time",
  "watch",
  "xargs",
  "parallel",
  "script",
]);

function unquoteWord(w: string): string {
  return w.replace(/["'\\]/g, "");
}

/** The words after leading `NAME=value` assignments. */
function commandWords(candidate: string): string[] {
  const words = candidate.split(" ");
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] as string)) i++;
  return words.slice(i);
}

/**
 * Why a (metacharacter-free, normalised) command cannot be judged against a deny pattern, if it
 * cannot: it runs another command, names its program with a glob or brace pattern, or asks `find`
 * to execute one. A deny list is a guard, not a sandbox: what it cannot rule out, it denies.
 */
export function unjudgeableForDeny(candidate: string): string | undefined {
  let start = 0;
  let program = "";
  for (;;) {
    const end = candidate.indexOf(" ", start);
    const word = end === -1 ? candidate.slice(start) : candidate.slice(start, end);
    if (word.indexOf("=") === -1 || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      program = word;
      break;
    }
    if (end === -1) return undefined;
    start = end + 1;
  }
  if (/[{}*?[\]]/.test(program)) return `its program '${program}' is a pattern the shell expands`;
  const base = program.slice(program.lastIndexOf("/") + 1);
  const name = /["'\\]/.test(base) ? unquoteWord(base) : base;
  if (RUNNERS.has(name)) return `'${name}' runs another command`;
  if (
    name === "find" &&
    commandWords(candidate).some((w) => /^-(exec|execdir|ok|okdir)$/.test(unquoteWord(w)))
  ) {
    return "'find' runs another command";
  }
  return undefined;
}

/**
 * The forms of a command a deny pattern is tested against: as written, and with leading variable
 * assignments, quotes and the program's folder stripped, so that `FOO=1 /usr/bin/"curl" x` still
 * meets `Bash(curl:*)`. Commands that run other commands are caught by `unjudgeableForDeny` first.
 */
export function denyForms(candidate: string): string[] {
  const space = candidate.indexOf(" ");
  const first = space === -1 ? candidate : candidate.slice(0, space);
  const plain =
    first.indexOf("=") === -1 &&
    first.indexOf("/") === -1 &&
    candidate.indexOf('"') === -1 &&
    candidate.indexOf("'") === -1 &&
    candidate.indexOf("\\") === -1;
  if (plain) return [candidate];
  const forms = new Set([candidate]);
  const unquoted = normaliseCommand(unquoteWord(candidate));
  forms.add(unquoted);
  const rest = commandWords(unquoted);
  if (rest.length > 0) {
    const program = rest[0] ?? "";
    rest[0] = program.slice(program.lastIndexOf("/") + 1);
    forms.add(rest.join(" "));
  }
  return [...forms];
}
