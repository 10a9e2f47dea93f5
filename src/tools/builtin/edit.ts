import { isUtf8 } from "node:buffer";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";
import { describeFsError, looksBinary, NODE_FS, resolveInput, type ToolFs } from "./fs.js";
import { staleness } from "./write.js";

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

const quote = (s: string) => (s.length > 200 ? `${JSON.stringify(s.slice(0, 200))}…` : JSON.stringify(s));

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

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
    async execute(input, ctx) {
      const file = resolveInput(ctx.cwd, input.file_path);
      if (input.old_string === "") return fail("old_string is empty; to create a file, use Write.");
      if (input.old_string === input.new_string)
        return fail("old_string and new_string are the same; nothing to change.");
      if (ctx.readRecord.readAt(file) === undefined) {
        return fail(`${file} has not been read in this run. Read it first, then edit.`);
      }
      const stale = await staleness(fs, file, ctx);
      if (stale) return fail(stale);
      let text: string;
      try {
        const bytes = await fs.readFile(file);
        if (looksBinary(bytes) || !isUtf8(bytes)) {
          return fail(
            `${file} is not UTF-8 text; Edit would change bytes it did not mean to. The file was not changed.`,
          );
        }
        text = bytes.toString("utf8");
      } catch (e) {
        return fail(`Cannot edit ${describeFsError(e, file)}.`);
      }
      let oldString = input.old_string;
      let newString = input.new_string;
      // A file with CRLF line ends still matches an old_string written with LF.
      if (!text.includes(oldString) && text.includes("\r\n") && oldString.includes("\n")) {
        oldString = oldString.replace(/\r?\n/g, "\r\n");
        newString = newString.replace(/\r?\n/g, "\r\n");
      }
      const count = countOccurrences(text, oldString);
      if (count === 0)
        return fail(
          `old_string was not found in ${file}: ${quote(input.old_string)}. Read the file again and copy the text exactly.`,
        );
      if (count > 1 && !input.replace_all) {
        return fail(
          `old_string occurs ${count} times in ${file}: ${quote(input.old_string)}. Give more surrounding text to make it unique, or set replace_all.`,
        );
      }
      const updated = input.replace_all
        ? text.split(oldString).join(newString)
        : text.replace(oldString, () => newString);
      try {
        await fs.writeFile(file, updated);
        ctx.readRecord.markRead(file, (await fs.stat(file)).mtimeMs);
      } catch (e) {
        return fail(`Cannot edit ${describeFsError(e, file)}.`);
      }
      return ok(
        `Edited ${file}: replaced ${input.replace_all ? count : 1} occurrence${count === 1 || !input.replace_all ? "" : "s"}.`,
      );
    },
  });
}
