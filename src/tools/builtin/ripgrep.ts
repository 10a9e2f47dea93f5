import { accessSync, constants } from "node:fs";
import path from "node:path";
import { runProcess } from "../../shared/run-process.js";

/** One file's matches, as the Grep tool shows them (only matched lines and their context are kept). */
export interface FileHits {
  readonly file: string;
  readonly mtime: number;
  readonly lineCount: number;
  readonly matched: number[];
  readonly shown: Record<number, string>;
}

export type SearchOutcome = { hits: FileHits[]; cut: boolean } | "timeout" | "aborted" | { error: string };

/** ripgrep's output beyond this many characters is cut (and said to be). */
const MAX_RG_OUTPUT = 8_000_000;

/** The `rg` program on PATH, or undefined: Grep then searches with its own engine. */
export function findRipgrep(pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, "rg");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface RipgrepSearch {
  readonly rg: string;
  readonly base: string;
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly glob?: string;
  readonly keep: { before: number; after: number } | null;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxFileBytes: number;
}

/**
 * The search by ripgrep, with the semantics of the built-in engine: hidden files searched, `.git`
 * and `node_modules` skipped, `.gitignore` honoured inside a repository or not, binary files and
 * files over the size cap skipped, no user config. Its JSON output becomes the same `FileHits`.
 */
export async function ripgrepSearch(s: RipgrepSearch): Promise<SearchOutcome> {
  const args = [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--glob",
    "!.git",
    "--glob",
    "!node_modules",
    "--max-filesize",
    String(s.maxFileBytes),
    ...(s.ignoreCase ? ["--ignore-case"] : []),
    ...(s.glob !== undefined ? ["--glob", s.glob] : []),
    ...(s.keep ? ["--before-context", String(s.keep.before), "--after-context", String(s.keep.after)] : []),
    "--regexp",
    s.pattern,
    "--",
    s.base,
  ];
  const r = await runProcess(s.rg, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG },
    signal: s.signal,
    timeoutMs: s.timeoutMs,
    maxChars: MAX_RG_OUTPUT,
  });
  if (r.kind === "aborted") return "aborted";
  if (r.kind === "timed-out") return "timeout";
  if (r.kind === "not-started") return { error: `ripgrep could not start: ${r.message}` };
  const hits = readJson(r.stdout.text(), s.keep !== null);
  if (r.kind === "exited" && r.code === 2 && hits.length === 0) {
    const said = r.stderr.text().trim().replace(/^rg: /, "");
    if (/regex parse error/.test(said))
      return {
        error: `Invalid regular expression: ${said.replace(/^regex parse error:\s*/, "").replace(/\s+/g, " ")}`,
      };
    return { error: said || "ripgrep failed" };
  }
  return { hits, cut: r.truncated };
}

interface RgLine {
  type: string;
  data: { path?: { text?: string }; lines?: { text?: string; bytes?: string }; line_number?: number };
}

function readJson(out: string, keepLines: boolean): FileHits[] {
  const byFile = new Map<string, { matched: number[]; shown: Record<number, string>; last: number }>();
  for (const raw of out.split("\n")) {
    let m: RgLine;
    try {
      m = JSON.parse(raw) as RgLine;
    } catch {
      continue;
    }
    if (m.type !== "match" && m.type !== "context") continue;
    const file = m.data.path?.text;
    const n = m.data.line_number;
    if (file === undefined || n === undefined) continue;
    const entry = byFile.get(file) ?? { matched: [], shown: {}, last: 0 };
    byFile.set(file, entry);
    if (m.type === "match") entry.matched.push(n - 1);
    const text = m.data.lines?.text ?? Buffer.from(m.data.lines?.bytes ?? "", "base64").toString("utf8");
    if (keepLines) entry.shown[n - 1] = text.replace(/\r?\n$/, "");
    entry.last = Math.max(entry.last, n);
  }
  // ripgrep searches in parallel: its files come in any order, the built-in engine's in name order.
  return [...byFile]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .filter(([, e]) => e.matched.length > 0)
    .map(([file, e]) => ({ file, mtime: 0, lineCount: e.last, matched: e.matched, shown: e.shown }));
}
