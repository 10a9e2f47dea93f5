import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * What `agentmd audit` reads of a project: its definitions, its settings, `.mcp.json`, and, read as
 * text to compare (never run), everything under `tools/` and `.claude/` (hook scripts live there),
 * and a local marketplace's or plugin's manifest anywhere (`.claude-plugin/`).
 */
const AUDITED =
  /^(?:agent\.md|\.mcp\.json|\.claude\/.+|tools\/.+|(?:agents|skills|commands)\/.+\.md|(?:.+\/)?\.claude-plugin\/.+)$/;

export type RevisionFiles =
  | {
      readonly ok: true;
      readonly commit: string;
      readonly dir: string;
      /** Files git ignores (a personal `.claude/settings.local.json`), read from the working tree on both sides. */
      readonly ignored: readonly string[];
      readonly cleanup: () => void;
    }
  | { readonly ok: false; readonly message: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Copies the files `agentmd audit` reads of the project at `projectDir`, and the files of `code`
 * (relative: the working tree's inventory of code), as they are at the git revision `rev` (read
 * from git's objects, never from the working tree), into a new temporary
 * folder laid out as the project is; files git ignores (no revision has them) are copied from the
 * working tree. Contract: never throws; a folder outside a repository or a revision git does not
 * know is a sentence, not an exception.
 */
export function revisionFiles(
  projectDir: string,
  rev: string,
  env: Env,
  code: readonly string[] = [],
): RevisionFiles {
  const git = (args: string[], cwd = projectDir, input?: string) =>
    spawnSync("git", args, { cwd, env: { ...env, GIT_TERMINAL_PROMPT: "0" }, input, maxBuffer: 1 << 30 });
  const top = git(["rev-parse", "--show-toplevel", "--show-prefix"]);
  if (top.error) return { ok: false, message: `git could not be started: ${top.error.message}` };
  if (top.status !== 0)
    return {
      ok: false,
      message: `${projectDir} is not inside a git repository, so there is no revision to compare with`,
    };
  const [root = projectDir, prefix = ""] = top.stdout.toString().split("\n");
  const commit = git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]);
  if (commit.status !== 0)
    return { ok: false, message: `unknown revision '${rev}': git knows no commit by that name here` };
  const sha = commit.stdout.toString().trim();
  const listing = git(["ls-tree", "-r", "-z", sha, "--", ...(prefix ? [prefix] : [])], root);
  if (listing.status !== 0)
    return { ok: false, message: `git could not list ${rev}: ${listing.stderr.toString().trim()}` };
  const wanted = new Set(code.map((rel) => rel.split(path.sep).join("/")));
  const files = listedBlobs(listing.stdout.toString(), prefix, (rel) => AUDITED.test(rel) || wanted.has(rel));
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "agentmd-audit-")));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const blobs =
    files.length > 0
      ? git(["cat-file", "--batch"], root, `${files.map((f) => f.object).join("\n")}\n`)
      : undefined;
  const contents = blobs ? batchContents(blobs.stdout) : [];
  if (contents.length !== files.length) {
    cleanup();
    return { ok: false, message: `git could not read the files of ${rev}` };
  }
  const put = (rel: string, content: Buffer) => {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  files.forEach((f, i) => {
    put(f.path, contents[i] as Buffer);
  });
  const ignored = ignoredFiles(projectDir, git).filter((rel) => !files.some((f) => f.path === rel));
  for (const rel of ignored) {
    try {
      put(rel, readFileSync(path.join(projectDir, rel)));
    } catch {
      // Gone or unreadable since git listed it: the revision's side goes without it, as the tree's.
    }
  }
  return { ok: true, commit: sha, dir, ignored, cleanup };
}

/**
 * The files the audit reads that git ignores in the working tree: they are no part of any revision
 * (a personal `.claude/settings.local.json`), so both sides read them as they are here.
 */
function ignoredFiles(
  projectDir: string,
  git: (args: string[], cwd?: string) => ReturnType<typeof spawnSync>,
): string[] {
  const where = ["agent.md", ".mcp.json", ".claude", "agents", "skills", "commands", "tools"];
  const r = git(
    ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", ...where],
    projectDir,
  );
  if (r.status !== 0) return [];
  return r.stdout
    .toString()
    .split("\0")
    .filter((rel) => AUDITED.test(rel) && isFile(path.join(projectDir, rel)));
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The regular files (no links, no submodules) below `prefix` that the audit reads, from `ls-tree -r -z`. */
function listedBlobs(
  listing: string,
  prefix: string,
  read: (rel: string) => boolean,
): { object: string; path: string }[] {
  const out: { object: string; path: string }[] = [];
  for (const line of listing.split("\0")) {
    const m = /^(\d+) blob ([0-9a-f]+)\t([\s\S]+)$/.exec(line);
    if (!m || m[1] === "120000" || !m[3]?.startsWith(prefix)) continue;
    const rel = m[3].slice(prefix.length);
    if (read(rel)) out.push({ object: m[2] as string, path: rel });
  }
  return out;
}

/** The objects of `git cat-file --batch` output, in order: `<sha> blob <size>\n<bytes>\n` each. */
function batchContents(out: Buffer): Buffer[] {
  const contents: Buffer[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    if (eol === -1) break;
    const size = Number(/^\S+ blob (\d+)$/.exec(out.subarray(at, eol).toString())?.[1]);
    if (!Number.isInteger(size)) break;
    contents.push(out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return contents;
}

/**
 * `value` with every path at or below `from` moved to `to`: definitions loaded from a copy, put back
 * where they live, so that patterns anchor at the project and origins name its files.
 */
export function rebasePaths<T>(value: T, from: string, to: string): T {
  const move = (s: string) =>
    s === from ? to : s.startsWith(`${from}${path.sep}`) ? `${to}${s.slice(from.length)}` : s;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return move(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== "object" || v === null) return v;
    const copy = Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(copy, k, {
        value: walk(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy;
  };
  return walk(value) as T;
}
