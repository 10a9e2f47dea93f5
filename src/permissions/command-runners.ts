import { gitRunsProgram } from "./git-commands.js";
import { type OptionRule, usesNamedOption } from "./shell/option-rule.js";

/**
 * What a deny pattern cannot see through: programs and builtins that run another command (a
 * shell, `sudo`, `xargs`, `make`), that run one through an option (`rsync -e`, `tar
 * --to-command`, `sed e`), or that are given code to run (`perl -e`). A deny list is a guard, not a
 * sandbox: what it cannot rule out, it denies. Data plus pure readers.
 */

/** Shells, and programs whose work is running a command or script given to them. */
const RUNNERS: ReadonlySet<string> = new Set(
  `bash sh zsh dash ksh mksh fish csh tcsh busybox toybox sudo doas su runuser sg newgrp chroot unshare
  nsenter ssh eval source . builtin ionice setsid taskset chrt numactl flock strace ltrace watch xargs
  parallel sem script coproc trap alias fc enable setpriv pkexec gosu su-exec chpst sshpass schroot
  systemd-run at batch tmux screen dtach expect unbuffer entr watchexec nodemon hyperfine valgrind gdb
  lldb perf catchsegv firejail bwrap proot fakeroot fakechroot faketime eatmydata nocache chronic ifne
  lckdo torsocks proxychains proxychains4 tsocks xvfb-run dbus-run-session ssh-agent run-parts cgexec
  prlimit cpulimit runcon nix-shell rlwrap retry mpirun mpiexec srun make gmake bmake ninja just
  vim vi nvim ex view gvim rvim rview vimdiff emacs emacsclient less more most npx bunx pnpx uvx
  setarch linux32 linux64 i386 i486 i586 i686 x86_64 uname26 capsh ed red dc m4 socat gnuplot psql mysql
  mariadb corepack task rake tox nox invoke gradle gradlew mvn mvnw ant sbt bazel bazelisk scons cmake ctest
  meson grunt gulp turbo nx lerna composer`.split(/\s+/),
);

/** The names of the programs the deny list takes for running another command (for tests and docs). */
export const RUNNER_NAMES: readonly string[] = [...RUNNERS];

/** Programs whose subcommands run a command given to them (`npm exec curl …`, `uv run …`). */
const SUBCOMMAND_RUNNERS: Readonly<Record<string, readonly string[]>> = {
  npm: ["exec", "x", "explore"],
  pnpm: ["exec", "dlx", "x"],
  yarn: ["exec", "dlx"],
  bun: ["x", "exec"],
  pipx: ["run"],
  uv: ["run", "tool"],
  poetry: ["run"],
  pdm: ["run"],
  hatch: ["run"],
  rye: ["run"],
  conda: ["run"],
  mamba: ["run"],
  micromamba: ["run"],
  bundle: ["exec"],
  cargo: ["run"],
  ip: ["netns"],
  deno: ["task", "x"],
};

/** Programs and builtins that run a command through an option, in any spelling of it. */
const OPTION_RUNNERS: Readonly<Record<string, OptionRule>> = {
  hash: { short: "p" },
  mapfile: { short: "C", shortValue: "dnOsuc" },
  readarray: { short: "C", shortValue: "dnOsuc" },
  compgen: { short: "CF", shortValue: "AGWPSX" },
  complete: { short: "CF", shortValue: "AGWPSX" },
  rsync: { long: ["rsh", "rsync-path"], short: "e", shortValue: "fBTM" },
  tar: {
    long: [
      "checkpoint-action",
      "to-command",
      "use-compress-program",
      "info-script",
      "new-volume-script",
      "rsh-command",
      "index-file",
    ],
    short: "IF",
    shortValue: "bCfgHKLNTVX",
  },
  zip: { long: ["unzip-command"], words: ["-TT"] },
  man: { long: ["pager", "html", "browser"], short: "PH", shortValue: "CMLmSesEp" },
  scp: { short: "SoF", shortValue: "ciJlPX" },
  sftp: { short: "SoFD", shortValue: "BbciJlPRs" },
  fd: { long: ["exec", "exec-batch"], short: "xX", shortValue: "edEtcj" },
  fdfind: { long: ["exec", "exec-batch"], short: "xX", shortValue: "edEtcj" },
  find: { words: ["-exec", "-execdir", "-ok", "-okdir"] },
};

/** Programs given code to run inline (`perl -e …`), with the options that give it. */
const INTERPRETERS: Readonly<Record<string, RegExp>> = {
  perl: /^-[a-zA-Z]*[eE]/,
  python: /^-[a-zA-Z]*c/,
  python2: /^-[a-zA-Z]*c/,
  python3: /^-[a-zA-Z]*c/,
  node: /^(-[a-zA-Z]*[ep]|--eval|--print)/,
  nodejs: /^(-[a-zA-Z]*[ep]|--eval|--print)/,
  deno: /^(eval|-e)$/,
  bun: /^(-e|--eval|-p|--print)$/,
  ruby: /^-[a-zA-Z]*e/,
  php: /^-[a-zA-Z]*r/,
  lua: /^-[a-zA-Z]*e/,
  Rscript: /^-e$/,
  osascript: /^-e$/,
  tclsh: /.^/,
};
const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);

/** Variables that make a program run something else, or find other programs. */
export const DANGEROUS_VARIABLE =
  /^(PATH|IFS|ENV|BASH_ENV|CDPATH|GLOBIGNORE|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|HOME|PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|BROWSER|SHELL|NODE_OPTIONS|LESSOPEN|LESSCLOSE|TMPDIR|(LD|DYLD|GIT|PYTHON|PERL5?|RUBY|NPM_CONFIG|SSH|BASH_FUNC)_?.*|[nN][pP][mM]_[cC][oO][nN][fF][iI][gG]_.*)=/;

export function baseName(program: string): string {
  const slash = program.lastIndexOf("/");
  return slash === -1 ? program : program.slice(slash + 1);
}

/** The dynamic loader, by any of its names (`ld-linux-x86-64.so.2`, `ld.so`, `ld64.so.1`, `ld-musl-x86_64.so.1`). */
const LOADER = /^ld[\w.+-]*\.so(\.[\w.]*)?$/;

/** Whether `name` is a shell or a program that runs the command given to it. */
export const runsCommands = (name: string): boolean => RUNNERS.has(name) || LOADER.test(name);

export const isInterpreter = (name: string): boolean =>
  Object.hasOwn(INTERPRETERS, name) || AWKS.has(name) || /^python3\.\d+$/.test(name);

/**
 * Why a command (its words, program first, not plain text as `null`) cannot be judged against a
 * deny pattern, if it cannot: it runs another command, gives an interpreter code to run, configures
 * `git` to run a program, or is a wrapper whose options cannot be read.
 */
export function evadesDeny(
  words: readonly (string | null)[],
  name = words[0] ? baseName(words[0]) : undefined,
): string | undefined {
  if (name === undefined) return undefined;
  if (runsCommands(name)) return `'${name}' runs another command`;
  if (name === "git") return gitRunsProgram(words);
  const args = words.slice(1);
  const sub = SUBCOMMAND_RUNNERS[name];
  if (sub && Object.hasOwn(SUBCOMMAND_RUNNERS, name) && args.some((a) => a === null || sub.includes(a)))
    return `'${name}' is given a subcommand that runs another command`;
  const option = Object.hasOwn(OPTION_RUNNERS, name) ? OPTION_RUNNERS[name] : undefined;
  if (option && usesNamedOption(option, args))
    return `'${name}' is given an option that runs another command`;
  if (name === "sed" && sedRunsCommands(args)) return "'sed' is given a script that can run a command";
  if (SQLITES.has(name) && sqliteRunsCommands(args))
    return `'${name}' may be given a dot-command or function that runs a command (only '-safe' rules them out)`;
  const inline = Object.hasOwn(INTERPRETERS, name)
    ? INTERPRETERS[name]
    : /^python3\.\d+$/.test(name)
      ? INTERPRETERS.python3
      : undefined;
  if (inline && args.some((w) => w === null || inline.test(w))) return `'${name}' is given code to run`;
  if (AWKS.has(name) && args.some((w) => w === null || /system|getline|\||\bprint\s*>/.test(w)))
    return `'${name}' is given a program that runs commands`;
  if (Object.hasOwn(WRAPPERS, name) && readWrapper(name, words) === "unreadable")
    return `'${name}' runs a command given with options that cannot be read`;
  return undefined;
}

/**
 * Whether a sed script may run a command (`e`, `s///e`) or names a script file: an `e` where a
 * command or an `s` flag can stand. Errs on the side of "may".
 */
function sedRunsCommands(args: readonly (string | null)[]): boolean {
  const scripts: string[] = [];
  let sawScriptOption = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || a === undefined) return true;
    if (/^(-f|--file|-[a-zA-Z]*f)/.test(a) || /^--f/.test(a)) return true;
    if (a === "-e" || a === "--expression") {
      sawScriptOption = true;
      const next = args[++i];
      if (next === null || next === undefined) return true;
      scripts.push(next);
    } else if (a.startsWith("--expression=") || a.startsWith("--e")) {
      sawScriptOption = true;
      scripts.push(a.slice(a.indexOf("=") + 1));
    } else if (/^-[a-zA-Z]*e./.test(a)) {
      sawScriptOption = true;
      scripts.push(a.slice(a.indexOf("e") + 1));
    } else if (!a.startsWith("-") && !sawScriptOption && scripts.length === 0) scripts.push(a);
  }
  return scripts.some((s) => /(^|[;\n{}!/$,\d\s])\s*e/.test(s));
}

const SQLITES = new Set(["sqlite3", "sqlite"]);
/** sqlite3's options that take a value (`-cmd`'s is read as a command of its own). */
const SQLITE_VALUED = new Set(
  "-separator -newline -nullvalue -vfs -mmap -pagecache -lookaside -maxsize -heap -escape -cmd -init".split(
    " ",
  ),
);

/**
 * Whether sqlite3 may run a command: a dot-command (`.shell`, `.system`, `.once |…`, `.load`, any
 * abbreviation), `edit()` or `load_extension()`, a script file (`-init`), or standard input (no SQL
 * given). `-safe` (anywhere) rules all of them out.
 */
function sqliteRunsCommands(args: readonly (string | null)[]): boolean {
  const given: (string | null)[] = [];
  let file = false;
  let init = false;
  let sql = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || a === undefined) return true;
    const option = a.startsWith("--") ? a.slice(1) : a;
    if (option === "-safe") return false;
    if (option === "-init") init = true;
    if (option === "-cmd") given.push(args[i + 1] ?? null);
    if (option.startsWith("-") && option.length > 1) {
      if (SQLITE_VALUED.has(option)) i++;
    } else if (file) {
      given.push(a);
      sql++;
    } else file = true;
  }
  // Without SQL on the command line, sqlite3 reads its commands from standard input.
  if (init || sql === 0) return true;
  return given.some((t) => t === null || /^\s*\./.test(t) || /(load_extension|edit)\b/i.test(t));
}

interface WrapperOptions {
  readonly flags?: readonly string[];
  readonly valued?: readonly string[];
  /** Options that only look a command up (`command -v`): nothing runs. */
  readonly lookup?: readonly string[];
  /** `nice -5`: a number as an option. */
  readonly numeric?: true;
  /** Words after the options before the command (`timeout`'s duration). */
  readonly operands?: number;
  /** `env`: `NAME=value` words before the command. */
  readonly assignments?: true;
}

/** `time`, `nohup`, `env X=1`, `nice -n 5`, `timeout 10`, `command`, `exec`, `stdbuf -oL`. */
const WRAPPERS: Readonly<Record<string, WrapperOptions>> = {
  time: {
    flags: ["-p", "-a", "-q", "-v", "--append", "--portability", "--quiet", "--verbose"],
    valued: ["-f", "-o", "--format", "--output"],
  },
  nohup: {},
  command: { flags: ["-p"], lookup: ["-v", "-V"] },
  exec: { flags: ["-c", "-l"], valued: ["-a"] },
  nice: { valued: ["-n", "--adjustment"], numeric: true },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  timeout: {
    flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
    valued: ["-s", "-k", "--signal", "--kill-after"],
    operands: 1,
  },
  env: {
    flags: ["-", "-i", "-0", "-v", "--ignore-environment", "--null", "--debug"],
    valued: ["-u", "-C", "--unset", "--chdir"],
    assignments: true,
  },
};

/**
 * The command a wrapper runs, read precisely: its words, "none" when it runs nothing (`env` alone,
 * `command -v x`), or "unreadable" when an option or an assignment cannot be read exactly.
 */
function readWrapper(
  name: string,
  words: readonly (string | null)[],
): readonly (string | null)[] | "none" | "unreadable" {
  const spec = WRAPPERS[name] as WrapperOptions;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === null || w === undefined) return "unreadable";
    if (w === "--") {
      i++;
      break;
    }
    if (!w.startsWith("-") || (w === "-" && !spec.flags?.includes("-"))) break;
    if (spec.lookup?.includes(w)) return "none";
    if (spec.flags?.includes(w)) continue;
    if (spec.valued?.includes(w)) {
      i++;
      continue;
    }
    const long = w.startsWith("--")
      ? w.slice(0, w.indexOf("=") === -1 ? w.length : w.indexOf("="))
      : undefined;
    if (long !== undefined && w.includes("=") && spec.valued?.includes(long)) continue;
    if (long === undefined && spec.valued?.includes(w.slice(0, 2)) && w.length > 2) continue;
    if (spec.numeric && /^-\d+$/.test(w)) continue;
    return "unreadable";
  }
  i += spec.operands ?? 0;
  if (spec.assignments)
    for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? ""); i++)
      if (DANGEROUS_VARIABLE.test(words[i] as string)) return "unreadable";
  if (words[i] === null) return "unreadable";
  return i < words.length ? words.slice(i) : "none";
}

/** The command a wrapper runs, if `words` are a wrapper's whose options can be read exactly. */
export function unwrap(words: readonly (string | null)[]): readonly (string | null)[] | undefined {
  const name = words[0] ? baseName(words[0]) : undefined;
  if (name === undefined || !Object.hasOwn(WRAPPERS, name)) return undefined;
  const inner = readWrapper(name, words);
  return typeof inner === "string" ? undefined : inner;
}
