import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool } from "../define-tool.js";
import type { Tool } from "../types.js";
import { checkEditable, editFile } from "./edit-file.js";
import { NODE_FS, resolveInput, type ToolFs } from "./fs.js";

const schema = {
  type: "object",
  properties: {
    file_path: {
      type: "string",
      description: "The file to change: absolute, or relative to the working folder.",
    },
    old_string: {
      type: "string",
      description: "The exact text to replace; it must occur exactly once unless replace_all.",
    },
    new_string: { type: "string", description: "The text to put in its place." },
    replace_all: { type: "boolean", description: "Replace every occurrence (default false)." },
  },
  required: ["file_path", "old_string", "new_string"],
} as const;

/** Edit: replaces text in a file read in this run; the text must be found exactly once. */
export function createEditTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "Edit",
    description:
      "Replaces old_string with new_string in a file that was read with Read in this run. old_string must occur exactly once (give more surrounding text to make it unique), or set replace_all.",
    inputSchema: schema,
    permission: judgesPath("file_path"),
    concurrency: "sequential",
    interrupt: "not-interruptible",
    precheck: (input, ctx) => checkEditable(fs, resolveInput(ctx.cwd, input.file_path), ctx),
    execute(input, ctx) {
      const file = resolveInput(ctx.cwd, input.file_path);
      return editFile(
        fs,
        file,
        [input],
        ctx,
        "Edit",
        ([n = 1]) => `Edited ${file}: replaced ${n} occurrence${n === 1 ? "" : "s"}.`,
      );
    },
  });
}
