import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../shared/is-inside.js";
import { commandsOf, isAssignment, type SimpleCommand } from "./command-line.js";
import { referencesOf } from "./file-references.js";
import { makeFiles } from "./makefile.js";
import { packageScripts } from "./package-scripts.js";

/**
 * Following what runs: from a command line (a hook's, an MCP server's, a package script's) to the
 * files it names, and from each file to those it sources, imports or requires, within the project.
 * Nothing is run; files are only read. What cannot be known before the line runs (a path built from
 * a variable, a script fetched from the network, a package from a registry) is kept as a sentence,
 * never dropped.
 */

/** A file the inventory holds, and the first reason it was found. */
export interface FollowedFile {
  readonly file: string;
  readonly why: string;
}

/** What the inventory could not follow: where it is, what it is, and why it cannot be followed. */
export interface NotFollowed {
  readonly where: string;
  readonly what: string;
  readonly why: string;
}

/** Where a command line runs and what its known variables are. */
export interface CommandPlace {
  /** Folders a relative word is taken from (the folder it runs in first). */
  readonly cwds: readonly string[];
  /** Variables whose value is known before it runs: `CLAUDE_PROJECT_DIR`, `CLAUDE_PLUGIN_ROOT`. */
  readonly known: Readonly<Record<string, string>>;
  /** Who runs it, for the reasons: `hook PreToolUse (Bash) — .claude/settings.json`. */
  readonly by: string;
  /** Make recipes: their `$(…)` are make's variables, said once for the Makefile instead. */
  readonly quiet?: boolean;
}

const MAX_FILES = 5000;
const MAX_SCAN_BYTES = 1 << 20;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"]);
const INTERPRETERS = new Set(
  "node nodejs python python3 python2 ruby perl php deno bun tsx ts-node lua Rscript".split(" "),
);
const WRAPPERS = new Set([
  "exec",
  "command",
  "nohup",
  "time",
  "nice",
  "builtin",
  "then",
  "do",
  "else",
  "if",
  "while",
  "until",
  "!",
  "{",
]);
const FETCHERS = new Set(["curl", "wget", "fetch", "http", "https"]);
const REGISTRY_RUNNERS = new Set(["npx", "bunx", "uvx", "pipx", "dlx"]);

export class Follower {
  readonly files = new Map<string, string>();
  readonly notFollowed: NotFollowed[] = [];
  private readonly seenNotes = new Set<string>();

  private readonly roots: readonly string[];

  /** Followed files lie in the project folder or in one of the plugins' folders. */
  constructor(
    private readonly projectDir: string,
    private readonly pluginRoots: readonly string[] = [],
  ) {
    this.roots = [projectDir, ...pluginRoots];
  }

  /** The variables a hook or a script of `file`'s folder is given: the project's, a plugin's root. */
  known(file: string): Record<string, string> {
    const plugin = this.pluginRoots.find((r) => isInside(file, r));
    return {
      CLAUDE_PROJECT_DIR: this.projectDir,
      ...(plugin !== undefined && { CLAUDE_PLUGIN_ROOT: plugin }),
    };
  }

  note(where: string, what: string, why: string): void {
    const key = `${where}\0${what}\0${why}`;
    if (this.seenNotes.has(key)) return;
    this.seenNotes.add(key);
    this.notFollowed.push({ where, what, why });
  }

  /** Follows a command line: every file its words name, and what those files name in turn. */
  command(line: string, at: CommandPlace): void {
    const commands = commandsOf(line, at.known);
    const programs = commands.map((c) => baseName(programWords(c.words)[0] ?? ""));
    if (
      programs.some((p) => FETCHERS.has(p)) &&
      programs.some(
        (p) => SHELLS.has(p) || INTERPRETERS.has(p) || p === "eval" || p === "source" || p === ".",
      )
    )
      this.note(
        at.by,
        oneLine(line),
        "it runs a script fetched from the network, which is not in the project",
      );
    for (const c of commands) this.simple(c, at);
  }

  private simple(c: SimpleCommand, at: CommandPlace): void {
    const words = programWords(c.words);
    const program = words[0];
    for (const r of c.reads) this.word(r, at, `read by ${at.by}`);
    if (program === undefined) return;
    const name = baseName(program);
    if (program.includes("$") && !at.quiet)
      this.note(at.by, oneLine(words.join(" ")), "the program is named at run time ($…)");
    if (SHELLS.has(name) || INTERPRETERS.has(name) || name === "." || name === "source") {
      const inline = inlineCode(words);
      if (inline !== undefined && SHELLS.has(name)) this.command(inline, at);
      const script = scriptArgument(words);
      if (script?.includes("$") && !at.quiet)
        this.note(at.by, oneLine(words.join(" ")), "it reads a path built at run time ($…)");
    }
    if (REGISTRY_RUNNERS.has(name) || (/^(pnpm|yarn)$/.test(name) && words[1] === "dlx"))
      this.note(
        at.by,
        oneLine(words.join(" ")),
        "it runs a package from a registry or node_modules, not a file of the project",
      );
    const scripts = packageScripts(words, at.cwds, this.roots);
    if (scripts?.why !== undefined) this.note(at.by, oneLine(words.join(" ")), scripts.why);
    for (const f of scripts?.read ?? []) this.add(f, `read to see what ${at.by} runs`);
    for (const s of scripts?.lines ?? []) {
      this.add(s.file, `package scripts run by ${at.by}`);
      this.command(s.line, { ...at, cwds: [s.cwd], by: `script '${s.script}' — ${this.shown(s.file)}` });
    }
    if (name === "make" || name === "gmake") {
      const make = makeFiles(words, at.cwds, this.roots);
      for (const f of make.files) this.add(f, `read by make, run by ${at.by}`);
      for (const n of make.notFollowed) this.note(at.by, n.what, n.why);
      for (const r of make.recipes)
        this.command(r.line, { ...at, cwds: [r.dir], by: `a recipe — ${this.shown(r.file)}`, quiet: true });
    }
    for (const w of words) this.word(w.replace(/^-[^=]*=/, ""), at, `run by ${at.by}`);
  }

  /** A word that names a file inside the roots: followed. */
  private word(word: string, at: CommandPlace, why: string): void {
    if (
      word === "" ||
      word.includes("$") ||
      word.startsWith("~") ||
      (word.startsWith("-") && !word.includes("/"))
    )
      return;
    for (const cwd of at.cwds) {
      const file = path.resolve(cwd, word);
      if (this.inRoots(file) && isFile(file)) {
        if (readsAsCode(file)) this.add(file, why);
        return;
      }
    }
  }

  /** Adds a file and follows what it sources, imports or requires. */
  add(file: string, why: string): void {
    if (this.files.has(file) || !this.inRoots(file)) return;
    if (this.files.size >= MAX_FILES) {
      this.note(
        this.shown(file),
        "more files",
        `more than ${MAX_FILES} files are named: the rest is not followed`,
      );
      return;
    }
    this.files.set(file, why);
    const text = readText(file);
    if (text === undefined) return;
    const refs = referencesOf(file, text);
    const by = `${this.shown(file)}`;
    if (refs.shell !== undefined)
      this.command(refs.shell, { cwds: [this.projectDir, path.dirname(file)], known: this.known(file), by });
    for (const m of refs.modules) this.add(m, `imported by ${by}`);
    for (const d of refs.dynamic) this.note(by, d, "it imports a module named at run time");
  }

  shown(file: string): string {
    const root = this.roots.find((r) => isInside(file, r));
    return root === undefined ? file : path.relative(root, file) || ".";
  }

  private inRoots(file: string): boolean {
    return this.roots.some((r) => file !== r && isInside(file, r));
  }
}

/** The words from the program on: assignments and wrappers (`env X=1`, `exec`, `timeout 5`) taken off. */
export function programWords(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i] as string;
    if (isAssignment(w) || WRAPPERS.has(w)) i++;
    else if (w === "env") {
      i++;
      while (i < words.length && (isAssignment(words[i] as string) || (words[i] as string).startsWith("-")))
        i++;
    } else if (w === "timeout") {
      i++;
      while (i < words.length && (words[i] as string).startsWith("-")) i++;
      i++;
    } else break;
  }
  return words.slice(i);
}

/** `sh -c 'code'`, `bash -lc 'code'`: the code. */
function inlineCode(words: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string;
    if (!w.startsWith("-")) return undefined;
    if (/^-[a-z]*c[a-z]*$/.test(w)) return words[i + 1];
  }
  return undefined;
}

/** The first word after the options: the script an interpreter or shell reads. */
function scriptArgument(words: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string;
    if (/^-[a-z]*[ce]$|^--eval$/.test(w)) return undefined;
    if (!w.startsWith("-")) return w;
  }
  return undefined;
}

const baseName = (program: string) => path.basename(program);
const oneLine = (s: string) => (s.length > 160 ? `${s.slice(0, 157)}…` : s).replace(/\s+/g, " ");

/**
 * Files a command names that decide what runs: code and configuration by their ending, a script
 * with a `#!` line, or an executable. A data file an argument names (a counter, a database, a log
 * the program writes) is not code: were it listed, every run that writes it would untrust the folder.
 */
const CODE_ENDINGS =
  /\.(?:[cm]?[jt]sx?|py|pyw|sh|bash|zsh|fish|rb|pl|pm|php|lua|tcl|r|jl|go|rs|java|kt|jar|class|wasm|node|so|ps1|bat|cmd|json|jsonc|json5|ya?ml|toml|ini|cfg|conf|env|mk|cmake|gradle|make|properties|xml)$/i;

function readsAsCode(file: string): boolean {
  if (
    CODE_ENDINGS.test(file) ||
    /(^|\/)(?:Makefile|makefile|GNUmakefile|Dockerfile|\.npmrc|\.env[^/]*)$/.test(file)
  )
    return true;
  try {
    if ((statSync(file).mode & 0o111) !== 0) return true;
    const fd = openSync(file, "r");
    try {
      const head = Buffer.alloc(2);
      return readSync(fd, head, 0, 2, 0) === 2 && head.toString("latin1") === "#!";
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    if (statSync(file).size > MAX_SCAN_BYTES) return undefined;
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
