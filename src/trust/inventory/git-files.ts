import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The files git reads, which decide what a `git` command runs: a `.git` file's target, the git
 * folder's `config` (and `config.worktree`), `commondir` and the common folder it names, `hooks/`
 * (or `core.hooksPath`), `info/`, and the tree's `.gitattributes` and `.gitmodules` (whose drivers
 * and commands the config names). All are protected, whether they exist or not (a `.git` file or a
 * `commondir` written where there was none moves git to a folder of the writer's own). The hooks
 * and the config's settings that name commands are code, and digested.
 */
export interface GitPath {
  readonly path: string;
  readonly folder: boolean;
}

export interface GitCode {
  /** `git hook pre-commit`, `git config core.fsmonitor`. */
  readonly id: string;
  readonly text: string;
  readonly file: string;
  readonly content: string | Buffer;
}

/** Config keys whose value is a command (or a file of commands) git runs. */
const CODE_KEYS =
  /^(?:core\.(?:fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|.*\.(?:textconv|command|clean|smudge|process|program|cmd|helper)|diff\.external|alias\..*|include\.path|includeif\..*\.path|sequence\.editor|gpg\..*)$/i;
const INSIDE_GIT_DIR: readonly GitPath[] = [
  { path: "config", folder: false },
  { path: "config.worktree", folder: false },
  { path: "commondir", folder: false },
  { path: "gitdir", folder: false },
  { path: "hooks", folder: true },
  { path: "info", folder: true },
];

export function gitFiles(root: string): { paths: GitPath[]; code: GitCode[] } {
  const paths: GitPath[] = [
    { path: path.join(root, ".git"), folder: false },
    ...INSIDE_GIT_DIR.map((p) => ({ ...p, path: path.join(root, ".git", p.path) })),
    { path: path.join(root, ".gitattributes"), folder: false },
    { path: path.join(root, ".gitmodules"), folder: false },
  ];
  const code: GitCode[] = [];
  const dirs = new Set<string>();
  for (const top of repositoryTops(root)) {
    const dot = path.join(top, ".git");
    const gitDir = isFolder(dot) ? dot : targetOf(dot);
    if (gitDir === undefined) continue;
    dirs.add(gitDir);
    const common = readLine(path.join(gitDir, "commondir"));
    if (common !== undefined) dirs.add(path.resolve(gitDir, common));
    if (top !== root) paths.push({ path: dot, folder: false });
  }
  for (const dir of dirs) {
    paths.push(...INSIDE_GIT_DIR.map((p) => ({ ...p, path: path.join(dir, p.path) })));
    for (const file of [path.join(dir, "config"), path.join(dir, "config.worktree")])
      code.push(...configCode(file, root, paths));
    code.push(...hooksIn(path.join(dir, "hooks"), root));
  }
  return { paths: unique(paths), code };
}

/** The project's folder and each above it that holds a `.git` (the repository it lies in). */
function repositoryTops(root: string): string[] {
  const out = [root];
  let at = root;
  for (;;) {
    const up = path.dirname(at);
    if (up === at) return out;
    at = up;
    if (exists(path.join(at, ".git"))) return [...out, at];
  }
}

/** `gitdir: X` of a `.git` file, resolved from its folder. */
function targetOf(dotGit: string): string | undefined {
  const line = readLine(dotGit);
  const m = line === undefined ? null : /^gitdir:\s*(.+)$/.exec(line);
  return m ? path.resolve(path.dirname(dotGit), (m[1] as string).trim()) : undefined;
}

/** The config's settings that name commands, by key; `core.hooksPath`'s folder is protected and its hooks digested. */
function configCode(file: string, root: string, paths: GitPath[]): GitCode[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: GitCode[] = [];
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const head = /^\[\s*([^\]\s"]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
    if (head) {
      section = head[2] === undefined ? (head[1] as string) : `${head[1]}.${head[2]}`;
      continue;
    }
    const kv = /^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!kv || line.startsWith("#") || line.startsWith(";")) continue;
    const key = `${section}.${kv[1]}`;
    if (!CODE_KEYS.test(key)) continue;
    const value = kv[2] ?? "true";
    out.push({
      id: `git config ${key}`,
      text: `git config ${key} = ${value}  — ${file}`,
      file,
      content: value,
    });
    if (/^core\.hookspath$/i.test(key)) {
      const hooks = path.resolve(root, value.replace(/^"|"$/g, ""));
      paths.push({ path: hooks, folder: true });
      out.push(...hooksIn(hooks, root));
    }
  }
  return out;
}

function hooksIn(dir: string, _root: string): GitCode[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => !n.endsWith(".sample"))
      .sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const file = path.join(dir, n);
    try {
      if (!statSync(file).isFile()) return [];
      return [
        { id: `git hook ${file}`, text: `git hook ${n}  — ${file}`, file, content: readFileSync(file) },
      ];
    } catch {
      return [];
    }
  });
}

function unique(paths: readonly GitPath[]): GitPath[] {
  const seen = new Set<string>();
  return paths.filter((p) => !seen.has(p.path) && seen.add(p.path) !== undefined);
}

function readLine(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").split("\n")[0]?.trim();
  } catch {
    return undefined;
  }
}

const exists = (p: string) => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};
const isFolder = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
