import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail } from "../define-tool.js";
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
    edits: {
      type: "array",
      description: "Replacements made in order, each on the text the previous one left.",
      items: {
        type: "object",
        properties: {
          old_string: {
            type: "string",
            description: "The exact text to replace; it must occur exactly once unless replace_all.",
          },
          new_string: { type: "string", description: "The text to put in its place." },
          replace_all: { type: "boolean", description: "Replace every occurrence (default false)." },
        },
        required: ["old_string", "new_string"],
      },
    },
  },
  required: ["file_path", "edits"],
} as const;

/** MultiEdit: Edit's replacements, several in one call, made all together or not at all. */
export function createMultiEditTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "MultiEdit",
    description:
      "Makes several Edit replacements in one file that was read with Read in this run, in order, each on the text the previous one left. All or nothing: if one cannot be made, the file is not changed and the answer says which one and why.",
    inputSchema: schema,
    permission: judgesPath("file_path", { family: "Edit" }),
    concurrency: "sequential",
    interrupt: "not-interruptible",
    precheck: (input, ctx) => checkEditable(fs, resolveInput(ctx.cwd, input.file_path), ctx),
    async execute(input, ctx) {
      if (input.edits.length === 0) return fail("edits is empty; give at least one replacement.");
      const file = resolveInput(ctx.cwd, input.file_path);
      return editFile(fs, file, input.edits, ctx, "MultiEdit", (counts) => {
        const total = counts.reduce((a, b) => a + b, 0);
        return `Edited ${file}: ${counts.length} edit${counts.length === 1 ? "" : "s"}, ${total} replacement${total === 1 ? "" : "s"}.`;
      });
    },
  });
}
