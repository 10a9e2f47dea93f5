import { type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";
import { AGENT_MD } from "./project-inputs.js";
import type { Diagnostic, PluginRef, Surface } from "./types.js";
import { walkTree } from "./walk-tree.js";

/** A markdown file that is (or claims to be) a definition, and where its project hangs from. */
export interface Discovered {
  readonly file: string;
  readonly surface: Surface;
  /** The project folder: holds `agent.md`, `agents/`, `skills/`, `commands/` (or `.claude/`). */
  readonly root: string;
  /** The surface folder the file was found under (`…/commands` names commands by path). */
  readonly base: string;
  /** Found in the user's own folder (`~/.claude/`): a project definition of the same name wins. */
  readonly user?: true;
  /** Found in a plugin: its name is namespaced by the plugin's, `${CLAUDE_PLUGIN_ROOT}` is put in. */
  readonly plugin?: PluginRef;
}

export interface Discovery {
  readonly found: Discovered[];
  readonly diagnostics: Diagnostic[];
}

/** The user's own folder of definitions and settings: `~/.claude`, when a home folder is known. */
export function userClaudeDir(home: string | undefined): string | undefined {
  return home ? path.join(home, ".claude") : undefined;
}

/**
 * The folder whose definitions a run uses: the nearest folder at or above `start` that holds
 * `agent.md` or `.claude/` (the home folder's `.claude/` is the user's, not a project); failing that,
 * the nearest holding `.git`; failing that, `start` itself. Then, so that no agent.md further up is
 * left out, the highest folder above that one (below the home folder) that holds `agent.md`: a
 * `.claude/` or `agent.md` below a folder with agent.md — which a run may have written itself —
 * never makes a new root with lists of its own. A folder named `agents`, `skills` or `commands` on
 * the way up is just a folder.
 */
export function findProjectRoot(start: string, home?: string): string {
  const first = path.resolve(start);
  const user = home === undefined ? undefined : path.resolve(home);
  const marked =
    upwards(
      first,
      (dir) => isFile(path.join(dir, "agent.md")) || (dir !== user && isDir(path.join(dir, ".claude"))),
    ) ?? upwards(first, (dir) => existsSync(path.join(dir, ".git")));
  const nearest = marked ?? first;
  return highestAgentAbove(nearest, user) ?? nearest;
}

/** The highest folder strictly above `dir` holding agent.md, not the home folder or above it. */
function highestAgentAbove(dir: string, home: string | undefined): string | undefined {
  let highest: string | undefined;
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (home !== undefined && isInside(home, d)) break;
    if (isFile(path.join(d, "agent.md"))) highest = d;
    if (path.dirname(d) === d) break;
  }
  return highest;
}

function upwards(from: string, holds: (dir: string) => boolean): string | undefined {
  for (let dir = from; ; ) {
    if (holds(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The four surfaces of one project: `agent.md`, `agents/**\/*.md`, `skills/*\/SKILL.md`,
 * `commands/**\/*.md`, and the same under `.claude/`.
 */
export function discoverProject(
  root: string,
  userDir?: string,
  plugins: readonly PluginRef[] = [],
): Discovery {
  const abs = path.resolve(root);
  const found: Discovered[] = [];
  const diagnostics: Diagnostic[] = [];
  // A plugin's definitions first: the project's own, of the same name, are found before them.
  for (const plugin of plugins)
    for (const d of surfaceFolders(plugin.root, plugin.root, diagnostics, plugin.root))
      found.push({ ...d, plugin });
  const user = userDir === undefined ? undefined : path.resolve(userDir);
  // The user's definitions first: a project's own of the same name take their place.
  if (user !== undefined && user !== path.join(abs, ".claude") && isDir(user)) {
    for (const d of surfaceFolders(user, abs, diagnostics, user)) found.push({ ...d, user: true });
  }
  const main = path.join(abs, AGENT_MD);
  if (isFile(main)) found.push({ file: main, surface: "main", root: abs, base: abs });
  else if (existsSync(main))
    diagnostics.push({
      file: main,
      line: 1,
      column: 1,
      severity: "error",
      code: "not-a-file",
      surface: "main",
      message: "agent.md is not a file (a folder?); the main agent cannot be loaded",
    });
  for (const home of [abs, path.join(abs, ".claude")])
    found.push(...surfaceFolders(home, abs, diagnostics, abs));
  return { found, diagnostics };
}

/**
 * `agents/`, `commands/` and `skills/*\/SKILL.md` below `home`, for the project at `root`;
 * symlinked folders are followed only inside `bound`.
 */
function surfaceFolders(home: string, root: string, diagnostics: Diagnostic[], bound: string): Discovered[] {
  const found: Discovered[] = [];
  const agents = path.join(home, "agents");
  for (const file of walkMarkdown(agents, diagnostics, bound))
    found.push({ file, surface: "agent", root, base: agents });
  const commands = path.join(home, "commands");
  for (const file of walkMarkdown(commands, diagnostics, bound))
    found.push({ file, surface: "command", root, base: commands });
  const skills = path.join(home, "skills");
  for (const entry of listDir(skills)) {
    const skillFile = path.join(skills, entry.name, "SKILL.md");
    // Whatever SKILL.md is (a file, a pipe), the loader says; a skill folder without one is not a skill.
    if (existsSync(skillFile)) found.push({ file: skillFile, surface: "skill", root, base: skills });
  }
  return found;
}

/**
 * Any files or folders, as given on a command line. Folders are searched for markdown files, each
 * classified by its name (`SKILL.md`, `agent.md`) or its nearest `agents/` or `commands/` folder;
 * files that are none of these are not definitions and are left out.
 */
export function discoverPaths(paths: readonly string[]): Discovery {
  const found: Discovered[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (file: string, explicit: boolean) => {
    if (seen.has(file)) return;
    seen.add(file);
    const d = classify(file);
    if (d) found.push(d);
    else if (explicit) {
      diagnostics.push({
        file,
        line: 1,
        column: 1,
        severity: "warning",
        code: "not-a-definition",
        message:
          "not a definition file: expected agent.md, SKILL.md, or a file under an agents/ or commands/ folder",
      });
    }
  };
  for (const p of paths) {
    const abs = path.resolve(p);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(abs);
    } catch {
      diagnostics.push({
        file: abs,
        line: 1,
        column: 1,
        severity: "error",
        code: "no-such-path",
        message: "no such file or folder",
      });
      continue;
    }
    if (st.isDirectory()) for (const file of walkMarkdown(abs, diagnostics, abs)) add(file, false);
    else add(abs, true);
  }
  return { found, diagnostics };
}

/** Which surface a markdown file belongs to, judged by its name and its nearest surface folder. */
export function classify(file: string): Discovered | null {
  const abs = path.resolve(file);
  const name = path.basename(abs);
  if (name === "SKILL.md") {
    const skillDir = path.dirname(abs);
    const parent = path.dirname(skillDir);
    const root = path.basename(parent) === "skills" ? projectOf(parent) : parent;
    return { file: abs, surface: "skill", root, base: parent };
  }
  for (let dir = path.dirname(abs); ; ) {
    const base = path.basename(dir);
    if (base === "agents" || base === "commands") {
      return { file: abs, surface: base === "agents" ? "agent" : "command", root: projectOf(dir), base: dir };
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (name === "agent.md")
    return { file: abs, surface: "main", root: path.dirname(abs), base: path.dirname(abs) };
  return null;
}

/** The project folder above a surface folder, stepping over `.claude/`. */
function projectOf(surfaceDir: string): string {
  const parent = path.dirname(surfaceDir);
  return path.basename(parent) === ".claude" ? path.dirname(parent) : parent;
}

/**
 * Every `.md` file below `dir`, sorted (see `walkTree`: symlinked folders only inside `bound`, the
 * project). Folders that cannot be read and symlinks that lead nowhere are reported as warnings.
 */
function walkMarkdown(dir: string, diagnostics: Diagnostic[], bound: string): string[] {
  return walkTree(dir, {
    bound,
    keep: (name) => name.toLowerCase().endsWith(".md"),
    onProblem: (file, code, message) =>
      diagnostics.push({ file, line: 1, column: 1, severity: "warning", code, message }),
  });
}

function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch {
    return [];
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `{ userDir }` for load options: `~/.claude` of `home`, or the folder given; nothing without either. */
export function userDirOf(home: string | undefined, given?: string | false): { userDir?: string } {
  if (given === false) return {};
  const dir = given ?? userClaudeDir(home);
  return dir ? { userDir: dir } : {};
}
