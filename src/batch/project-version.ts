import { createHash } from "node:crypto";
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The folders and files whose content makes a project what it is to a run: the definitions and
 * everything beside them (a skill's resources, a command's scripts), also under `.claude/`.
 */
const DEFINITION_FILES = ["agent.md"];
const DEFINITION_FOLDERS = ["agents", "skills", "commands"];
const SKIP = new Set(["node_modules", ".git"]);

/**
 * A content hash of a project's definitions (`sha256:` and 16 hex digits): the same on every machine
 * whose folder holds the same files, whatever their times or the folder's place. A job names the
 * version it was made for, and a worker whose project differs refuses it rather than run the job
 * with other prompts or another allow-list. Line endings are read as `\n`, so a checkout with CRLF
 * is the same version.
 */
export function projectVersion(projectDir: string): string {
  const root = path.resolve(projectDir);
  const files: string[] = [];
  for (const home of [root, path.join(root, ".claude")]) {
    for (const name of DEFINITION_FILES) if (isFile(path.join(home, name))) files.push(path.join(home, name));
    for (const folder of DEFINITION_FOLDERS) walk(path.join(home, folder), files);
  }
  const hash = createHash("sha256");
  const entries = files.map((f) => [path.relative(root, f).split(path.sep).join("/"), f] as const);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [rel, file] of entries) {
    const content = readFileSync(file).toString("latin1").replace(/\r\n/g, "\n");
    hash.update(`${rel}\0${content.length}\0`).update(content, "latin1");
  }
  return `sha256:${hash.digest("hex").slice(0, 16)}`;
}

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 20) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !SKIP.has(e.name)) walk(p, out, depth + 1);
    else if (isFile(p)) out.push(p);
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
