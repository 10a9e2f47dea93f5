import path from "node:path";
import picomatch from "picomatch";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";
import { describeFsError, NODE_FS, resolveInput, type ToolFs } from "./fs.js";

export const LS_MAX_ENTRIES = 1000;

const schema = {
  type: "object",
  properties: {
    path: {
      type: "string",
      description: "The folder to list: absolute (or relative to the working folder).",
    },
    ignore: {
      type: "array",
      items: { type: "string" },
      description:
        "Globs of entries to leave out, e.g. ['*.log', 'dist'] (a glob with '/' is matched against the whole path).",
    },
  },
  required: ["path"],
} as const;

/**
 * LS: the entries of one folder, in name order, folders marked with `/`, at most LS_MAX_ENTRIES.
 * Entries this run may not read are left out, as Glob and Grep leave them out.
 */
export function createLsTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "LS",
    description: `Lists the files and folders in a folder (folders end with '/'), in name order, at most ${LS_MAX_ENTRIES}. ignore leaves out entries matching globs. Use Glob to find files below it.`,
    inputSchema: schema,
    permission: judgesPath("path", { family: "Read" }),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      const dir = resolveInput(ctx.cwd, input.path);
      const shownDir = dir.endsWith("/") ? dir : `${dir}/`;
      let ignored: (full: string, name: string) => boolean;
      try {
        ignored = ignoreMatcher(input.ignore ?? []);
      } catch (e) {
        return fail(`Invalid ignore glob: ${(e as Error).message}.`);
      }
      let entries: Awaited<ReturnType<ToolFs["readdir"]>>;
      try {
        if (!(await fs.stat(dir)).isDirectory())
          return fail(`${dir} is a file, not a folder; use Read to read it.`);
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (e) {
        return fail(`Cannot list ${describeFsError(e, dir)}.`);
      }
      const mayAccess = ctx.mayAccess ?? (() => true);
      const names = entries
        .filter((e) => {
          const full = path.join(dir, e.name);
          return !ignored(full, e.name) && mayAccess(full);
        })
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (names.length === 0) return ok(`${shownDir} is empty.`);
      const shown = names.slice(0, LS_MAX_ENTRIES).map((n) => `  ${n}`);
      const more = names.length - LS_MAX_ENTRIES;
      if (more > 0) shown.push(`… and ${more} more; narrow it with ignore, or use Glob.`);
      return ok([shownDir, ...shown].join("\n"));
    },
  });
}

/** Whether an entry matches one of the globs: on its name, or on its whole path for a glob with '/'. */
function ignoreMatcher(globs: readonly string[]): (full: string, name: string) => boolean {
  const tests = globs.map((g) => {
    const m = picomatch(g, { dot: true });
    return g.includes("/") ? (full: string) => m(full) : (_full: string, name: string) => m(name);
  });
  return (full, name) => tests.some((t) => t(full, name));
}
