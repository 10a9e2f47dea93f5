import path from "node:path";
import picomatch from "picomatch";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";
import { describeFsError, NODE_FS, resolveInput, type ToolFs } from "./fs.js";
import { checkRelativeGlob, walkFiles } from "./walk.js";

export const GLOB_MAX_RESULTS = 100;

const schema = {
  type: "object",
  properties: {
    pattern: { type: "string", description: "A glob relative to path, e.g. '**/*.ts' or 'src/*.md'." },
    path: { type: "string", description: "The folder to search (default: the working folder)." },
  },
  required: ["pattern"],
} as const;

/** Glob: files matching a pattern, newest first, capped. Skips .git and node_modules. */
export function createGlobTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "Glob",
    description: `Finds files by glob pattern (e.g. '**/*.ts') below a folder, newest first, at most ${GLOB_MAX_RESULTS}. Skips .git and node_modules; hidden files match only patterns that name them.`,
    inputSchema: schema,
    permission: judgesPath("path", { defaultToCwd: true, family: "Read" }),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      const base = resolveInput(ctx.cwd, input.path ?? ".");
      const problem = checkRelativeGlob(input.pattern, "pattern");
      if (problem) return fail(`${problem}.`);
      try {
        if (!(await fs.stat(base)).isDirectory()) return fail(`${base} is not a folder.`);
      } catch (e) {
        return fail(`Cannot search ${describeFsError(e, base)}.`);
      }
      let isMatch: (p: string) => boolean;
      try {
        isMatch = picomatch(input.pattern, { dot: false });
      } catch (e) {
        return fail(`Invalid glob '${input.pattern}': ${(e as Error).message}.`);
      }
      const { files, truncated } = await walkFiles(fs, base, ctx.signal, ctx.mayAccess);
      if (ctx.signal.aborted) return fail("Interrupted.");
      const matches: { file: string; mtime: number }[] = [];
      for (const file of files) {
        if (!isMatch(path.relative(base, file).split(path.sep).join("/"))) continue;
        let mtime = 0;
        try {
          mtime = (await fs.stat(file)).mtimeMs;
        } catch {
          // a broken symlink still names a path; it sorts last
        }
        matches.push({ file, mtime });
      }
      if (matches.length === 0) return ok(`No files match '${input.pattern}' in ${base}.`);
      matches.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1));
      const shown = matches.slice(0, GLOB_MAX_RESULTS).map((m) => m.file);
      const notes: string[] = [];
      if (matches.length > GLOB_MAX_RESULTS) {
        notes.push(
          `(showing the ${GLOB_MAX_RESULTS} newest of ${matches.length} matches; narrow the pattern or the path)`,
        );
      }
      if (truncated) notes.push("(the folder is too large to search completely; narrow the path)");
      return ok([...shown, ...notes].join("\n"));
    },
  });
}
