import path from "node:path";
import picomatch from "picomatch";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";
import { describeFsError, NODE_FS, resolveInput, type ToolFs } from "./fs.js";
import { type FileHits, findRipgrep, ripgrepSearch, type SearchOutcome } from "./ripgrep.js";
import { rustToJs } from "./rust-regex.js";
import { checkRelativeGlob, display, walkFiles } from "./walk.js";

const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Lines longer than this are not searched: a pathological line must not stall the run. */
const MAX_LINE = 20_000;
export const GREP_MAX_OUTPUT = 30_000;
/** JavaScript regular expressions backtrack: the search runs in a worker that is stopped after this. */
export const GREP_TIMEOUT_MS = 30_000;

const schema = {
  type: "object",
  properties: {
    pattern: {
      type: "string",
      description: "A regular expression in ripgrep's syntax (e.g. 'fn\\s+\\w+', '(?i)todo').",
    },
    path: { type: "string", description: "A file or folder to search (default: the working folder)." },
    glob: { type: "string", description: "Only files matching this glob, e.g. '*.ts' or 'src/**/*.md'." },
    output_mode: {
      type: "string",
      enum: ["content", "files_with_matches", "count"],
      description:
        "content: matching lines; files_with_matches (default): file names; count: matches per file.",
    },
    "-i": { type: "boolean", description: "Case-insensitive." },
    "-n": { type: "boolean", description: "Line numbers in content mode (default true)." },
    "-A": { type: "integer", description: "Lines of context after each match (content mode)." },
    "-B": { type: "integer", description: "Lines of context before each match (content mode)." },
    "-C": { type: "integer", description: "Lines of context around each match (content mode)." },
    head_limit: { type: "integer", description: "Only the first N lines or entries of the output." },
  },
  required: ["pattern"],
} as const;

/** At most this many lines are kept for content mode across all files; the output is cut anyway. */
const MAX_KEPT_LINES = 20_000;

/**
 * Grep: a regular expression over files, as lines, file names or counts. Skips .git, node_modules,
 * binaries and what .gitignore excludes. Searches with ripgrep when `rg` is on PATH (`rg: null`:
 * never), else with its own engine, which reads ripgrep's syntax; its description says which.
 */
export function createGrepTool(deps: { fs?: ToolFs; timeoutMs?: number; rg?: string | null } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  const timeoutMs = deps.timeoutMs ?? GREP_TIMEOUT_MS;
  // ripgrep reads the disk: a tool given a file system of its own searches that with its own engine.
  const rg =
    fs === NODE_FS
      ? deps.rg === undefined
        ? findRipgrep(process.env.PATH)
        : (deps.rg ?? undefined)
      : undefined;
  return defineTool<typeof schema>({
    name: "Grep",
    description: `Searches files for a regular expression (ripgrep's syntax). output_mode: files_with_matches (default, newest first), content (matching lines, with -n, -A, -B, -C), or count. Filter files with glob. Skips .git, node_modules, binary files and what .gitignore excludes. ${rg ? "Runs ripgrep (rg)." : "ripgrep is not installed: a built-in engine reads its syntax (inline flags only at the start)."}`,
    inputSchema: schema,
    permission: judgesPath("path", { defaultToCwd: true, family: "Read" }),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      const base = resolveInput(ctx.cwd, input.path ?? ".");
      const mode = input.output_mode ?? "files_with_matches";
      const after = input["-A"] ?? input["-C"] ?? 0;
      const before = input["-B"] ?? input["-C"] ?? 0;
      if (after < 0 || before < 0) return fail("-A, -B and -C must be 0 or more.");
      if (input.head_limit !== undefined && input.head_limit < 1)
        return fail("head_limit must be 1 or more.");
      let globMatch: ((rel: string) => boolean) | undefined;
      if (input.glob !== undefined) {
        const problem = checkRelativeGlob(input.glob, "glob");
        if (problem) return fail(`${problem}.`);
        try {
          const m = picomatch(input.glob, { dot: true });
          globMatch = input.glob.includes("/") ? m : (rel) => m(path.posix.basename(rel));
        } catch (e) {
          return fail(`Invalid glob '${input.glob}': ${(e as Error).message}.`);
        }
      }
      const chosenByGlob = (file: string) =>
        !globMatch || globMatch(path.relative(base, file).split(path.sep).join("/") || path.basename(file));
      const keep = mode === "content" ? { before, after } : null;
      let searched: SearchOutcome;
      let truncated = false;
      if (rg) {
        searched = await ripgrepSearch({
          rg,
          base,
          pattern: input.pattern,
          ignoreCase: input["-i"] === true,
          // A glob with a folder in it is matched here, relative to path, as the built-in engine matches it.
          ...(input.glob !== undefined && !input.glob.includes("/") && { glob: input.glob }),
          keep,
          signal: ctx.signal,
          timeoutMs,
          maxFileBytes: MAX_FILE_BYTES,
        });
        if (typeof searched === "object" && "hits" in searched)
          searched = {
            ...searched,
            hits: await withTimes(
              searched.hits.filter((h) => (ctx.mayAccess?.(h.file) ?? true) && chosenByGlob(h.file)),
            ),
          };
      } else {
        const re = rustToJs(input.pattern, input["-i"] === true);
        if (!(re instanceof RegExp)) return fail(`Invalid regular expression: ${re.error}.`);
        let files: string[];
        try {
          const st = await fs.stat(base);
          if (st.isDirectory()) ({ files, truncated } = await walkFiles(fs, base, ctx.signal, ctx.mayAccess));
          else files = [base];
        } catch (e) {
          return fail(`Cannot search ${describeFsError(e, base)}.`);
        }
        const chosen = files.filter(chosenByGlob);
        searched = await searchInWorker(await sourcesOf(fs, chosen), re, keep, ctx.signal, timeoutMs);
      }
      if (searched === "aborted") return fail("Interrupted.");
      if (searched === "timeout") {
        return fail(
          `The search took more than ${timeoutMs / 1000} s and was stopped: a regular expression with nested repetition (like (a+)+) can take exponential time. Simplify the pattern or narrow the path.`,
        );
      }
      if ("error" in searched) return fail(`${searched.error.replace(/\.?$/, ".")}`);
      const hits = searched.hits;
      if (searched.cut) truncated = true;
      if (hits.length === 0) return ok(`No matches for /${input.pattern}/ in ${base}.`);
      let out: string[];
      if (mode === "files_with_matches") {
        out = [...hits]
          .sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1))
          .map((h) => display(ctx.cwd, h.file));
      } else if (mode === "count") {
        out = hits.map((h) => `${display(ctx.cwd, h.file)}:${h.matched.length}`);
      } else {
        out = contentLines(hits, ctx.cwd, before, after, input["-n"] ?? true);
      }
      return ok(finish(out, input.head_limit, truncated));
    },
  });
}

/** Matching lines `file:12:text`, context lines `file-11-text`, groups separated by `--`. */
function contentLines(
  hits: readonly FileHits[],
  cwd: string,
  before: number,
  after: number,
  numbers: boolean,
): string[] {
  const out: string[] = [];
  for (const h of hits) {
    const name = display(cwd, h.file);
    const show = new Map<number, boolean>();
    for (const m of h.matched) {
      for (let i = Math.max(0, m - before); i <= Math.min(h.lineCount - 1, m + after); i++) {
        if (!show.has(i)) show.set(i, false);
      }
      show.set(m, true);
    }
    let last = -2;
    for (const i of [...show.keys()].sort((a, b) => a - b)) {
      if (last !== -2 && i > last + 1 && (before > 0 || after > 0)) out.push("--");
      const sep = show.get(i) ? ":" : "-";
      const text = h.shown[i] ?? "";
      out.push(numbers ? `${name}${sep}${i + 1}${sep}${text}` : `${name}${sep}${text}`);
      last = i;
    }
  }
  return out;
}

function finish(lines: string[], headLimit: number | undefined, truncated: boolean): string {
  let shown = headLimit !== undefined ? lines.slice(0, headLimit) : lines;
  const notes: string[] = [];
  if (headLimit !== undefined && lines.length > headLimit)
    notes.push(`(first ${headLimit} of ${lines.length})`);
  let text = shown.join("\n");
  if (text.length > GREP_MAX_OUTPUT) {
    let size = 0;
    let n = 0;
    while (n < shown.length && size + (shown[n] as string).length + 1 <= GREP_MAX_OUTPUT)
      size += (shown[n++] as string).length + 1;
    notes.push(
      `(output cut at ${GREP_MAX_OUTPUT} characters: ${n} of ${shown.length} lines shown; narrow the search or use head_limit)`,
    );
    shown = shown.slice(0, n);
    text = shown.join("\n");
  }
  if (truncated) notes.push("(the folder is too large to search completely; narrow the path)");
  return [text, ...notes].join("\n");
}

interface SearchSource {
  readonly file: string;
  readonly mtime?: number;
  readonly bytes?: Uint8Array;
}

/**
 * The search itself, in a worker thread: a regular expression that backtracks for ever (`(a+)+$`)
 * blocks only the worker, which is terminated on timeout or abort. Plain JavaScript, so that it
 * runs the same from the sources and from dist/. It keeps only the lines content mode shows, and
 * stops keeping (and searching) once it holds more than the output could ever show.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const { sources, source, flags, maxBytes, maxLine, keep, maxKept } = workerData;
const re = new RegExp(source, flags);
const hits = [];
let kept = 0;
let cut = false;
for (const s of sources) {
  let mtime = s.mtime, bytes = s.bytes;
  if (!bytes) {
    try {
      const st = fs.statSync(s.file);
      if (!st.isFile() || st.size > maxBytes) continue;
      mtime = st.mtimeMs;
      bytes = fs.readFileSync(s.file);
    } catch { continue; }
  }
  bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.subarray(0, 8192).includes(0)) continue;
  const lines = bytes.toString("utf8").split(/\\r?\\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  const matched = [];
  for (let i = 0; i < lines.length; i++) if (lines[i].length <= maxLine && re.test(lines[i])) matched.push(i);
  if (!matched.length) continue;
  const shown = {};
  if (keep) {
    for (const m of matched) {
      for (let i = Math.max(0, m - keep.before); i <= Math.min(lines.length - 1, m + keep.after); i++) {
        if (!(i in shown)) { shown[i] = lines[i]; kept++; }
      }
    }
  }
  hits.push({ file: s.file, mtime, lineCount: lines.length, matched, shown });
  if (kept > maxKept) { cut = true; break; }
}
parentPort.postMessage({ hits, cut });
`;

async function searchInWorker(
  sources: readonly SearchSource[],
  re: RegExp,
  keep: { before: number; after: number } | null,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ hits: FileHits[]; cut: boolean } | "timeout" | "aborted"> {
  // Loaded with the first search: a command that only lists the tools does not load worker threads.
  const { Worker } = await import("node:worker_threads");
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        sources,
        source: re.source,
        flags: re.flags,
        maxBytes: MAX_FILE_BYTES,
        maxLine: MAX_LINE,
        keep,
        maxKept: MAX_KEPT_LINES,
      },
    });
    const finish = (r: { hits: FileHits[]; cut: boolean } | "timeout" | "aborted") => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve(r);
    };
    const onAbort = () => finish("aborted");
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (r: { hits: FileHits[]; cut: boolean }) => finish(r));
    worker.once("error", () => finish({ hits: [], cut: false }));
    if (signal.aborted) finish("aborted");
  });
}

/** Files come from the injected file system when there is one; Node's are read in the worker. */
async function sourcesOf(fs: ToolFs, files: readonly string[]): Promise<SearchSource[]> {
  if (fs === NODE_FS) return files.map((file) => ({ file }));
  const sources: SearchSource[] = [];
  for (const file of files) {
    try {
      const st = await fs.stat(file);
      if (st.isFile() && st.size <= MAX_FILE_BYTES)
        sources.push({ file, mtime: st.mtimeMs, bytes: await fs.readFile(file) });
    } catch {
      // unreadable: skipped, as the worker skips it
    }
  }
  return sources;
}

/** ripgrep's hits with their files' times, for newest-first order. */
async function withTimes(hits: readonly FileHits[]): Promise<FileHits[]> {
  return Promise.all(
    hits.map(async (h) => {
      try {
        return { ...h, mtime: (await NODE_FS.stat(h.file)).mtimeMs };
      } catch {
        return h;
      }
    }),
  );
}
