import { statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../shared/is-inside.js";
import { walkTree } from "./walk-tree.js";

/**
 * The one list of what a project is made of: every file a run of it reads before the model is
 * asked anything. The loaders take their names from here, and a batch's project version is a
 * digest of exactly the files this list finds, so that nothing a run depends on can differ between
 * the machine that queued a job and the one that runs it without the job being refused.
 */

/** The main agent. */
export const AGENT_MD = "agent.md";
/** The definition folders, in the project and under `.claude/` (and in the user's folder). */
export const SURFACE_FOLDERS = ["agents", "skills", "commands"] as const;
/** The project's own tool modules (`tools/*.{js,mjs,ts}`, and whatever they import beside them). */
export const CUSTOM_TOOLS_DIR = "tools";
/** The project's MCP servers. */
export const MCP_JSON = ".mcp.json";
/** Claude Code's settings of the project: shared, then the user's own for it (most specific last). */
export const PROJECT_SETTINGS = [".claude/settings.json", ".claude/settings.local.json"] as const;
/** The memory files of each folder from the project down to the working folder. */
export const MEMORY_FILES = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"] as const;
/** The user's settings and instructions, in their `~/.claude` folder. */
export const USER_SETTINGS = "settings.json";
export const USER_MEMORY = "CLAUDE.md";

export type InputKind = "main" | "definitions" | "tools" | "settings" | "mcp" | "memory" | "plugin";

export interface ProjectInput {
  /** Absolute. */
  readonly file: string;
  readonly kind: InputKind;
  /**
   * `project`: in the project folder, the same wherever the project is checked out. `user`: the
   * user's own (`~/.claude`), which differ from machine to machine.
   */
  readonly scope: "project" | "user";
}

export interface InputsOptions {
  /** The user's `~/.claude` folder, if its files are read. */
  readonly userDir?: string;
  /** The working folder: the memory files of each folder down to it are read (default: the project). */
  readonly cwd?: string;
  /**
   * The folders of the enabled plugins (see `projectPlugins`): every file in them is an input, the
   * project's when the folder is inside it, else the user's.
   */
  readonly plugins?: readonly string[];
}

/**
 * The input files of the project at `projectDir` that exist now (plain files, FIFOs and symlinks
 * that lead nowhere are listed too: their reader says what they are), in a stable order.
 * Contract: never throws.
 */
export function projectInputs(projectDir: string, options: InputsOptions = {}): ProjectInput[] {
  const root = path.resolve(projectDir);
  const out: ProjectInput[] = [];
  const add = (kind: InputKind, scope: ProjectInput["scope"], files: readonly string[]) => {
    for (const file of files) out.push({ file, kind, scope });
  };
  add("main", "project", present([path.join(root, AGENT_MD)]));
  for (const home of [root, path.join(root, ".claude")])
    for (const folder of SURFACE_FOLDERS)
      add("definitions", "project", walkTree(path.join(home, folder), { bound: root }));
  add("tools", "project", walkTree(path.join(root, CUSTOM_TOOLS_DIR), { bound: root }));
  add("settings", "project", present(PROJECT_SETTINGS.map((f) => path.join(root, f))));
  add("mcp", "project", present([path.join(root, MCP_JSON)]));
  for (const dir of memoryFolders(root, options.cwd ?? root))
    add("memory", "project", present(MEMORY_FILES.map((f) => path.join(dir, f))));
  for (const dir of options.plugins ?? []) {
    const scope = isInside(dir, root) ? "project" : "user";
    add("plugin", scope, walkTree(dir, { bound: dir }));
  }
  const user = options.userDir === undefined ? undefined : path.resolve(options.userDir);
  if (user !== undefined && user !== path.join(root, ".claude")) {
    add("settings", "user", present([path.join(user, USER_SETTINGS)]));
    add("memory", "user", present([path.join(user, USER_MEMORY)]));
    for (const folder of SURFACE_FOLDERS)
      add("definitions", "user", walkTree(path.join(user, folder), { bound: user }));
  }
  return out;
}

/** The project's settings files, then the user's before them (least specific first). */
export function settingsFiles(root: string, userDir: string | undefined): string[] {
  return [
    ...(userDir ? [path.join(userDir, USER_SETTINGS)] : []),
    ...PROJECT_SETTINGS.map((f) => path.join(root, f)),
  ];
}

/** The project folder, then each folder down to `cwd` (just the project when `cwd` is outside it). */
export function memoryFolders(root: string, cwd: string): string[] {
  if (!isInside(cwd, root)) return [root];
  const rel = path.relative(root, cwd);
  const out = [root];
  let dir = root;
  for (const part of rel === "" ? [] : rel.split(path.sep)) {
    dir = path.join(dir, part);
    out.push(dir);
  }
  return out;
}

function present(files: readonly string[]): string[] {
  return files.filter((f) => {
    try {
      statSync(f);
      return true;
    } catch {
      return false;
    }
  });
}
