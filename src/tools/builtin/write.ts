import path from "node:path";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import { changedSince, seenNow } from "../read-record.js";
import type { Tool, ToolContext } from "../types.js";
import { describeFsError, NODE_FS, resolveInput, type ToolFs } from "./fs.js";

const schema = {
  type: "object",
  properties: {
    file_path: {
      type: "string",
      description: "The file to write: absolute, or relative to the working folder.",
    },
    content: { type: "string", description: "The whole new content of the file." },
  },
  required: ["file_path", "content"],
} as const;

/**
 * Why an existing file may not be changed yet: it has not been read in this run, or it changed on
 * disk since. Undefined when it may. Shared by Write and Edit.
 */
export async function staleness(
  fs: ToolFs,
  file: string,
  ctx: Pick<ToolContext, "readRecord">,
): Promise<string | undefined> {
  let st: { mtimeMs: number; size: number };
  try {
    st = await fs.stat(file);
  } catch {
    return undefined;
  }
  const seen = ctx.readRecord.readAt(file);
  if (seen === undefined)
    return `${file} already exists and has not been read in this run. Read it first, then write.`;
  if (changedSince(st, seen))
    return `${file} has changed on disk since it was read. Read it again, then write.`;
  return undefined;
}

/** Write: creates folders as needed; never overwrites a file this run has not read. */
export function createWriteTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "Write",
    description:
      "Writes a file, creating its folders. An existing file must have been read with Read in this run first; prefer Edit for changes to one.",
    inputSchema: schema,
    permission: judgesPath("file_path", { family: "Edit" }),
    concurrency: "sequential",
    interrupt: "not-interruptible",
    precheck: (input, ctx) => staleness(fs, resolveInput(ctx.cwd, input.file_path), ctx),
    async execute(input, ctx) {
      const file = resolveInput(ctx.cwd, input.file_path);
      const stale = await staleness(fs, file, ctx);
      if (stale) return fail(stale);
      let existed = true;
      try {
        const st = await fs.stat(file);
        if (st.isDirectory()) return fail(`${file} is a folder.`);
        if (!st.isFile())
          return fail(`${file} is not a regular file (a device, pipe or socket); Write writes files only.`);
      } catch {
        existed = false;
      }
      try {
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, input.content);
        ctx.readRecord.markRead(file, seenNow(await fs.stat(file)));
      } catch (e) {
        return fail(`Cannot write ${describeFsError(e, file)}.`);
      }
      const lines = input.content === "" ? 0 : input.content.split("\n").length;
      return ok(`${existed ? "Overwrote" : "Created"} ${file} (${lines} line${lines === 1 ? "" : "s"}).`);
    },
  });
}
