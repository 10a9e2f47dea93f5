import path from "node:path";

/**
 * What a package manager runs of the project's code, for the deny list: `npm run build`, `npm
 * test`, `pnpm lint`, `yarn build` run the `scripts` of the nearest package.json (with their `pre`
 * and `post` scripts) through `sh -c`, so the deny list judges those command lines as it judges the
 * call's own. What it cannot see through — an install that runs its dependencies' install scripts,
 * a subcommand that runs a package (`create`, `dlx`), an option it does not know, a package.json it
 * cannot read, a `script-shell` setting — it says, and the deny list denies. The trust inventory
 * follows the same lines to the project's files they run. Data plus pure readers; the file system
 * is read only through the caller's `readFile`.
 */

/** A file's text, or undefined when it is absent or cannot be read (a folder, too big). */
export type ReadText = (absolutePath: string) => string | undefined;

/** A command line a package manager runs: a script's (with the call's arguments), in its package's folder. */
export interface ScriptLine {
  readonly line: string;
  readonly cwd: string;
  /** The script's name (`pretest`), or the words run when no script has the name. */
  readonly script: string;
  /** The package.json the script is in. */
  readonly file: string;
}

/**
 * What runs, or why it cannot all be seen; `seen`: what of it can (an install's lifecycle scripts
 * of the project: the deny list denies the call all the same, the trust inventory follows them).
 */
export type PackageRun =
  | { readonly lines: readonly ScriptLine[] }
  | { readonly why: string; readonly seen?: readonly ScriptLine[] };

interface Manager {
  /** Subcommands followed by a script's name. */
  readonly run: readonly string[];
  /** Subcommands that run scripts of their own name (`npm test`, `npm restart`). */
  readonly named: Readonly<Record<string, readonly string[]>>;
  /** Install the project's dependencies: their install scripts and the project's lifecycle scripts run. */
  readonly installs: readonly string[];
  /** Run no script of the project or of a package. */
  readonly quiet: readonly string[];
  /** Its own subcommands that run something else (a package, an editor, a workspace's scripts). */
  readonly others: readonly string[];
  /** A word that is not a subcommand names a script; without one, the words run as a command. */
  readonly bare: boolean;
  /** No subcommand at all installs (`yarn`). */
  readonly bareInstalls?: true;
  /** Options naming the folder it works in. */
  readonly dir: readonly string[];
  /** Words after a script's name are the script's, options too (not npm: there they are its own). */
  readonly passes?: true;
}

const NPM_INSTALLS =
  "install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install ic install-clean isntall-clean update up upgrade udpate rebuild rb link ln dedupe ddp prune uninstall remove rm r un unlink pack publish version";

const MANAGERS: Readonly<Record<string, Manager>> = {
  npm: {
    run: ["run", "run-script", "rum", "urn"],
    named: {
      test: ["test"],
      t: ["test"],
      tst: ["test"],
      start: ["start"],
      stop: ["stop"],
      restart: ["restart", "stop", "start"],
    },
    installs: NPM_INSTALLS.split(" "),
    quiet:
      "ls list la ll view v info show outdated whoami search s se find ping root prefix bin help help-search doctor cache fund query sbom explain why audit".split(
        " ",
      ),
    others: [],
    bare: false,
    dir: ["--prefix", "-C"],
  },
  pnpm: {
    run: ["run", "run-script"],
    named: {
      test: ["test"],
      t: ["test"],
      tst: ["test"],
      start: ["start"],
      stop: ["stop"],
      restart: ["restart", "stop", "start"],
    },
    installs:
      "install i add update up upgrade remove rm uninstall un unlink link ln rebuild rb import prune dedupe install-test it fetch pack publish deploy patch-commit approve-builds".split(
        " ",
      ),
    quiet: "ls list ll la why outdated audit licenses root bin help store info view whoami search ping".split(
      " ",
    ),
    others:
      "exec dlx x create init recursive m multi server setup config c get set env self-update patch patch-remove doctor cat-file cat-index find-hash ignored-builds".split(
        " ",
      ),
    bare: true,
    dir: ["-C", "--dir"],
    passes: true,
  },
  yarn: {
    run: ["run"],
    named: {},
    installs: "install add upgrade up remove import link unlink dedupe rebuild".split(" "),
    quiet: "info why list outdated audit licenses versions bin cache owner tag team login logout help".split(
      " ",
    ),
    others:
      "create dlx exec node workspace workspaces global generate-lock-entry policies set plugin patch patch-commit npm pack publish init constraints version stage explain sdks unplug config upgrade-interactive".split(
        " ",
      ),
    bare: true,
    bareInstalls: true,
    dir: ["--cwd"],
    passes: true,
  },
  bun: {
    run: ["run"],
    named: {},
    installs: "install i add a remove rm update link unlink pm patch publish".split(" "),
    quiet: "test build outdated audit info help".split(" "),
    others: "x exec create c init upgrade repl".split(" "),
    bare: true,
    dir: ["--cwd"],
    passes: true,
  },
};

/** Options that change nothing of what runs; and those that take a value. */
const FLAGS = new Set(
  "-s --silent -q --quiet --if-present -d -dd -ddd --verbose --no-color --color --foreground-scripts --no-audit --no-fund --json --parseable --long --all --frozen-lockfile --prefer-offline --offline --production --prod -P -D --dev --save-dev --save-exact -E --no-save".split(
    " ",
  ),
);
const VALUED = new Set("--loglevel --reporter --registry --depth --tag".split(" "));
const MAX_FILE = 1 << 20;

/** Whether `name` is a package manager whose scripts the deny list follows (node too: `node --run`). */
export const isPackageManager = (name: string): boolean => Object.hasOwn(MANAGERS, name) || NODES.has(name);
const NODES = new Set(["node", "nodejs"]);

/**
 * The command lines `words` (program first) run through the project's package scripts, or why
 * that cannot be seen; undefined when they run no script (`npm ls`). `cwd`: where the call runs.
 */
export function packageRun(
  words: readonly (string | null)[],
  name: string,
  cwd: string,
  readFile: ReadText | undefined,
): PackageRun | undefined {
  if (NODES.has(name)) return nodeRun(words, cwd, readFile);
  const m = MANAGERS[name] as Manager;
  const call = readCall(m, words.slice(1), cwd);
  if ("why" in call) return call;
  const sub = call.sub;
  if (sub === undefined) return m.bareInstalls ? installs(name, call, readFile) : undefined;
  if (m.quiet.includes(sub))
    return sub === "audit" && call.rest.includes("fix") ? installs(name, call, readFile) : undefined;
  if (m.installs.includes(sub)) return installs(name, call, readFile);
  if (m.others.includes(sub)) return { why: `'${name} ${sub}' runs a package or a command it cannot see` };
  if (m.run.includes(sub)) {
    const script = call.rest[0];
    return script === undefined
      ? undefined
      : scriptLines(name, [script], call.rest.slice(1), call.dir, readFile, m);
  }
  const named = Object.hasOwn(m.named, sub) ? m.named[sub] : undefined;
  if (named) return scriptLines(name, named, call.rest, call.dir, readFile, m);
  if (m.bare) return scriptLines(name, [sub], call.rest, call.dir, readFile, m);
  return { why: `'${name} ${sub}' is a subcommand the deny list does not know` };
}

/** `node --run NAME [-- args]` runs a script of the nearest package.json (judged with its `pre` and `post`, as npm runs them). */
function nodeRun(
  words: readonly (string | null)[],
  cwd: string,
  readFile: ReadText | undefined,
): PackageRun | undefined {
  const at = words.findIndex((w) => w === null || w === "--run" || w.startsWith("--run="));
  if (at < 0) return undefined;
  const w = words[at];
  const script = w === "--run" ? words[at + 1] : w?.slice("--run=".length);
  const args = words.slice(w === "--run" ? at + 2 : at + 1).filter((a) => a !== "--");
  if (typeof script !== "string" || args.some((a) => a === null))
    return { why: "'node --run' is given a word that is not plain text" };
  return scriptLines("node --run", [script], args as string[], cwd, readFile, MANAGERS.npm as Manager);
}

interface Call {
  readonly sub?: string;
  /** The words after the subcommand, options that change nothing left out (`--` too). */
  readonly rest: readonly string[];
  readonly dir: string;
  readonly ignoreScripts: boolean;
}

/** The subcommand, the words after it and the folder, or why the options cannot be read. */
function readCall(m: Manager, args: readonly (string | null)[], cwd: string): Call | { why: string } {
  let sub: string | undefined;
  const rest: string[] = [];
  let dir = cwd;
  let ignoreScripts = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || a === undefined) return { why: "a word of it is not plain text" };
    if (a === "--" || (sub !== undefined && m.passes && runsScript(m, sub, rest))) {
      for (const b of args.slice(a === "--" ? i + 1 : i)) {
        if (b === null) return { why: "a word of it is not plain text" };
        rest.push(b);
      }
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      if (sub === undefined) sub = a;
      else rest.push(a);
      continue;
    }
    const [option, value] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a];
    if (option === "--ignore-scripts" && value === undefined) ignoreScripts = true;
    else if (m.dir.includes(option)) {
      const to = value ?? args[++i];
      if (typeof to !== "string") return { why: `its '${option}' folder is not plain text` };
      dir = path.posix.resolve(dir, to);
    } else if (VALUED.has(option)) {
      if (value === undefined) i++;
    } else if (!FLAGS.has(option) || value !== undefined)
      return { why: `its option '${a}' is one the deny list does not know` };
  }
  return { ...(sub !== undefined && { sub }), rest, dir, ignoreScripts };
}

/** Whether the words from here on are a script's own: its name is behind. */
function runsScript(m: Manager, sub: string, rest: readonly string[]): boolean {
  if (m.installs.includes(sub) || m.quiet.includes(sub) || m.others.includes(sub)) return false;
  return !m.run.includes(sub) || rest.length > 0;
}

/** The project's own scripts an install runs (without their `pre`/`post`: these are named). */
const LIFECYCLE = [
  "preinstall",
  "install",
  "postinstall",
  "prepublish",
  "preprepare",
  "prepare",
  "postprepare",
];

function installs(name: string, call: Call, readFile: ReadText | undefined): PackageRun | undefined {
  if (call.ignoreScripts) return undefined;
  const found = readFile ? packageScripts(call.dir, readFile) : undefined;
  const seen = found && !("why" in found) ? linesOf(found, LIFECYCLE, "") : [];
  return {
    why: `'${name}' installs packages, running their install scripts, which the deny list cannot see (with '--ignore-scripts' none run)`,
    ...(seen.length > 0 && { seen }),
  };
}

/** The lines of the scripts `names` that the package.json has, `appended` to the one named `last`. */
function linesOf(
  found: { readonly scripts: Readonly<Record<string, string>>; readonly at: string },
  names: readonly string[],
  appended: string,
  last?: string,
): ScriptLine[] {
  const file = path.posix.join(found.at, "package.json");
  return names.flatMap((s) => {
    const text = Object.hasOwn(found.scripts, s) ? found.scripts[s] : undefined;
    if (text === undefined) return [];
    return [{ line: s === last && appended ? `${text} ${appended}` : text, cwd: found.at, script: s, file }];
  });
}

/**
 * The lines of the scripts `names` (each with its `pre` and `post`), the call's arguments appended
 * to each; for a manager that runs a bare word, the words themselves when no script has the name.
 */
function scriptLines(
  manager: string,
  names: readonly string[],
  args: readonly string[],
  dir: string,
  readFile: ReadText | undefined,
  m: Manager,
): PackageRun {
  const found = readFile ? packageScripts(dir, readFile) : { why: "package.json cannot be read here" };
  if ("why" in found)
    return { why: `'${manager}' runs scripts of a package.json it cannot read: ${found.why}` };
  const appended = args.map(quote).join(" ");
  const lines = names.flatMap((n) => linesOf(found, [`pre${n}`, n, `post${n}`], appended, n));
  if (lines.length === 0 && m.bare) {
    const line = [...names, ...args].map(quote).join(" ");
    lines.push({ line, cwd: found.at, script: line, file: path.posix.join(found.at, "package.json") });
  }
  return { lines };
}

/** The `scripts` of the package.json nearest `dir` (looking up), with its folder; or why not. */
function packageScripts(
  dir: string,
  readFile: ReadText,
): { scripts: Readonly<Record<string, string>>; at: string } | { why: string } {
  for (let at = dir; ; at = path.posix.dirname(at)) {
    const text = readFile(path.posix.join(at, "package.json"));
    if (text !== undefined) {
      const npmrc = readFile(path.posix.join(at, ".npmrc")) ?? "";
      if (/^\s*(script-shell|shell)\s*=/m.test(npmrc))
        return { why: `${path.posix.join(at, ".npmrc")} sets the shell scripts run with` };
      return parseScripts(text, at);
    }
    if (at === "/") return { why: `there is none in ${dir} or above` };
  }
}

function parseScripts(
  text: string,
  at: string,
): { scripts: Record<string, string>; at: string } | { why: string } {
  const file = path.posix.join(at, "package.json");
  if (text.length > MAX_FILE) return { why: `${file} is too big` };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { why: `${file} is not JSON` };
  }
  const scripts = (v as { scripts?: unknown } | null)?.scripts;
  if (scripts === undefined) return { scripts: {}, at };
  if (typeof scripts !== "object" || scripts === null || Array.isArray(scripts))
    return { why: `the scripts of ${file} are not an object` };
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(scripts)) {
    if (typeof s !== "string") return { why: `the script '${k}' of ${file} is not text` };
    out[k] = s;
  }
  return { scripts: out, at };
}

/** A word as `sh` reads it back: single-quoted unless plain. */
function quote(word: string): string {
  return /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
