import path from "node:path";
import type { Plugin } from "../../definitions/types.js";
import type { CodeItem, RepositoryCode } from "../code-item.js";
import { sha256 } from "../hash.js";
import type { FollowedFile, Follower, NotFollowed } from "./follow.js";
import { gitFiles } from "./git-files.js";
import { item } from "./items.js";
import type { ToolFiles } from "./tool-files.js";

/** A path no run may write unless a list names it; `folder` when everything below it is protected too. */
export interface ProtectedPath {
  readonly path: string;
  readonly folder: boolean;
  readonly why: string;
}

/** A project's code: its items (listed, digested), its files of code, what was not followed, what is protected. */
export interface Inventory extends RepositoryCode {
  /** Every file of code in the project or its plugins' folders, absolute, with why it is code. */
  readonly files: readonly FollowedFile[];
  /** What runs that could not be followed: named in the listing and in `audit`. */
  readonly notFollowed: readonly NotFollowed[];
  /** What no run may write: the files that define runs, every file of code, git's files, the user's own. */
  readonly protected: readonly ProtectedPath[];
}

/**
 * The files that define a project's runs, relative to its folder (a trailing `/`: a folder): a
 * Write here would change the next call's hook or the next run's lists.
 */
const DEFINING = [
  "agent.md",
  "agents/",
  "skills/",
  "commands/",
  "tools/",
  ".claude/",
  ".mcp.json",
  "CLAUDE.md",
  "CLAUDE.local.md",
];

/** The user's own files, in their home folder: their settings, hooks, plugins and trust. */
const USER_FOLDERS = [".claude", ".agentmd"];

export function inventoryOf(
  dir: string,
  home: string | undefined,
  parts: {
    items: CodeItem[];
    follow: Follower;
    tools: ToolFiles;
    plugins: readonly Plugin[];
    /** Every file of the project's plugins' folders, with the plugin's id. */
    pluginFiles: readonly (readonly [string, string])[];
  },
): Inventory {
  const git = gitFiles(dir);
  const shown = (f: string) => (f.startsWith(`${dir}${path.sep}`) ? path.relative(dir, f) : f);
  const items = [
    ...parts.items,
    ...git.code.map((c) =>
      item(
        "git",
        c.id.replace(c.file, shown(c.file)),
        c.text.replace(c.file, shown(c.file)),
        shown(c.file),
        c.content,
      ),
    ),
  ];
  const files: FollowedFile[] = [
    ...[...parts.tools.modules, ...parts.tools.beside].map((file) => ({ file, why: "a custom tool module" })),
    ...parts.pluginFiles.map(([file, id]) => ({ file, why: `a file of plugin ${id}` })),
    ...[...parts.follow.files].map(([file, why]) => ({ file, why })),
  ];
  const unique = [...new Map(files.map((f) => [f.file, f])).values()];
  const protectedPaths: ProtectedPath[] = [
    ...DEFINING.map((p) => ({
      path: path.join(dir, p.replace(/\/$/, "")),
      folder: p.endsWith("/"),
      why: "it defines the project's runs",
    })),
    ...git.paths.map((p) => ({
      ...p,
      why: "git reads it (its config, hooks and attributes name commands git runs)",
    })),
    ...parts.plugins.map((p) => ({ path: p.root, folder: true, why: `the folder of plugin ${p.id}` })),
    ...unique.map((f) => ({ path: f.file, folder: false, why: `it is code: ${f.why}` })),
    ...(home === undefined
      ? []
      : USER_FOLDERS.map((f) => ({
          path: path.join(home, f),
          folder: true,
          why: "the user's own agentmd and Claude Code files",
        }))),
  ];
  return {
    ...codeOf(dir, items),
    files: unique,
    notFollowed: parts.follow.notFollowed,
    protected: withoutCovered(protectedPaths),
  };
}

/** The listing and digest of `items` (repeats, such as a script two hooks name, once). */
export function codeOf(dir: string, items: readonly CodeItem[]): RepositoryCode {
  const byId = new Map(items.map((i) => [i.id, i]));
  const sorted = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { dir, items: sorted, digest: sha256(JSON.stringify(sorted.map((i) => [i.id, i.hash]))) };
}

/** Each path once, and none inside a protected folder listed already. */
function withoutCovered(paths: readonly ProtectedPath[]): ProtectedPath[] {
  const folders = paths.filter((p) => p.folder);
  const seen = new Set<string>();
  return paths.filter((p) => {
    if (seen.has(p.path)) return false;
    seen.add(p.path);
    return !folders.some((f) => f !== p && f.path !== p.path && p.path.startsWith(`${f.path}${path.sep}`));
  });
}
