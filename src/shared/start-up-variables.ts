/**
 * Environment variables that change what an allowed command does without changing its text: the
 * shell, git, the interpreters and the dynamic loader read them when they start; others move the
 * home folder or the search path, or name a program (an editor, a pager, a remote shell) or a
 * configuration file that a command then runs or reads. A project's files may not set them
 * (`.claude/settings.json`'s `env`): whoever wrote the repository would choose what `echo hi` or
 * `git status` runs. Plain data; the judge is `startUpVariable`.
 */

/** Names read at start, by who reads them. Compared without regard to case. */
const BY_NAME: Readonly<Record<string, string>> = {
  ...each("bash and sh read it when they start", [
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "EXECIGNORE",
    "FPATH",
    "ZDOTDIR",
    "BASH_COMPAT",
    "BASH_LOADABLES_PATH",
    "BASH_XTRACEFD",
    "INPUTRC",
    "HISTFILE",
    "OLDPWD",
    "PWD",
    "POSIXLY_CORRECT",
    "SHELL",
  ]),
  ...each("it chooses the home folder, where `~` and every program's configuration are", ["HOME"]),
  ...each("it chooses which program a command name runs", ["PATH"]),
  ...each("the dynamic loader or the C library loads code it names", [
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "LOCPATH",
    "NLSPATH",
    "HOSTALIASES",
    "RES_OPTIONS",
    "LOCALDOMAIN",
  ]),
  ...each("node reads it at start", [
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_REPL_EXTERNAL_MODULE",
    "NODE_EXTRA_CA_CERTS",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "NODE_V8_COVERAGE",
    "NODE_REDIRECT_WARNINGS",
    "NODE_ICU_DATA",
    "NODE_COMPILE_CACHE",
    "NODE_REPL_HISTORY",
    "ELECTRON_RUN_AS_NODE",
  ]),
  ...each("a JVM, .NET, PHP, Lua or R reads it at start", [
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
    "DOTNET_STARTUP_HOOKS",
    "CORECLR_ENABLE_PROFILING",
    "CORECLR_PROFILER",
    "CORECLR_PROFILER_PATH",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "LUA_INIT",
    "LUA_PATH",
    "LUA_CPATH",
    "R_PROFILE",
    "R_PROFILE_USER",
    "R_ENVIRON",
    "R_ENVIRON_USER",
    "TCLLIBPATH",
  ]),
  ...each("a build or package tool reads it and runs what it names", [
    "MAKEFLAGS",
    "MAKEFILES",
    "GNUMAKEFLAGS",
    "MFLAGS",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "GCC_EXEC_PREFIX",
    "COMPILER_PATH",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "GOFLAGS",
    "GOENV",
    "GOTOOLCHAIN",
    "GOROOT",
    "GOPATH",
    "GOBIN",
    "GOCACHE",
    "GOPROXY",
    "GOSUMDB",
    "GONOSUMDB",
    "GOINSECURE",
    "GOPRIVATE",
    "GONOPROXY",
  ]),
  ...each("a program reads its options or a program to run from it", [
    "EDITOR",
    "VISUAL",
    "FCEDIT",
    "PAGER",
    "MANPAGER",
    "MANOPT",
    "MANPATH",
    "MANROFFOPT",
    "BROWSER",
    "LESS",
    "LESSOPEN",
    "LESSCLOSE",
    "LESSEDIT",
    "LESSKEY",
    "LESSKEYIN",
    "LESSKEY_SYSTEM",
    "MORE",
    "SYSTEMD_PAGER",
    "SYSTEMD_EDITOR",
    "SUDO_EDITOR",
    "SUDO_ASKPASS",
    "SSH_ASKPASS",
    "TAR_OPTIONS",
    "ZIPOPT",
    "UNZIP",
    "UNZIPOPT",
    "GZIP",
    "BZIP",
    "BZIP2",
    "XZ_DEFAULTS",
    "XZ_OPT",
    "GREP_OPTIONS",
    "RSYNC_RSH",
    "RSYNC_CONNECT_PROG",
    "CVS_RSH",
    "RSH",
    "PARALLEL",
    "PARALLEL_SHELL",
    "VIMINIT",
    "EXINIT",
    "MYVIMRC",
    "VIMRUNTIME",
    "GVIMINIT",
    "EMACSLOADPATH",
    "CURL_HOME",
    "WGETRC",
    "SCREENRC",
    "GNUPGHOME",
    "OPENSSL_CONF",
    "OPENSSL_ENGINES",
    "OPENSSL_MODULES",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "SSLKEYLOGFILE",
  ]),
  ...each("it chooses where temporary files are written", ["TMPDIR", "TMP", "TEMP"]),
  ...each("it sends a command's network traffic through another host", [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "FTP_PROXY",
    "NO_PROXY",
  ]),
  ...each("agentmd's own model client reads it (the API key would go to whatever it names)", [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_PROJECT_DIR",
  ]),
};

/** Families by name prefix: every variable of the program that reads them. */
const BY_PREFIX: readonly (readonly [string, string])[] = [
  ["BASH_FUNC_", "bash defines a function from it, which runs in place of a command"],
  ["LD_", "the dynamic loader reads it when any program starts"],
  ["DYLD_", "the dynamic loader reads it when any program starts"],
  ["GIT_", "git reads it (a configuration, a program to run, another repository)"],
  ["XDG_", "it moves the folders programs read their configuration from (git's among them)"],
  ["PERL", "perl reads it at start"],
  ["RUBY", "ruby reads it at start"],
  ["GEM_", "ruby loads code from where it names"],
  ["BUNDLE_", "bundler reads its configuration from it"],
  ["NPM_CONFIG_", "npm reads its configuration from it"],
  ["YARN_", "yarn reads its configuration from it"],
  ["PIP_", "pip reads its configuration from it"],
  ["CARGO_", "cargo reads its configuration from it (programs it runs among them)"],
  ["AGENTMD_", "agentmd itself reads it"],
];

/** Python's variables that change nothing a command runs or reads. */
const INERT_PYTHON: ReadonlySet<string> = new Set([
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONIOENCODING",
  "PYTHONUTF8",
  "PYTHONHASHSEED",
  "PYTHONFAULTHANDLER",
  "PYTHONNOUSERSITE",
  "PYTHONOPTIMIZE",
  "PYTHONLEGACYWINDOWSSTDIO",
]);

/** A name the shell can hold: a key with `=` would set another variable (`LD_PRELOAD=/x.so:`). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why a variable may not come from a project's files, or undefined when it changes nothing an
 * allowed command runs or reads (`FOO`, `NODE_ENV`, `RUST_LOG`). Case is ignored (`http_proxy` is
 * `HTTP_PROXY`). Pure.
 */
export function startUpVariable(name: string): string | undefined {
  if (!NAME.test(name)) return "it is not a variable name, and would set another variable";
  const upper = name.toUpperCase();
  if (Object.hasOwn(BY_NAME, upper)) return BY_NAME[upper];
  if (upper.startsWith("PYTHON") && !INERT_PYTHON.has(upper)) return "python reads it at start";
  return BY_PREFIX.find(([prefix]) => upper.startsWith(prefix))?.[1];
}

function each(why: string, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, why]));
}
