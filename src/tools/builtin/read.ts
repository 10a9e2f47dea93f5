import path from "node:path";
import { judgesPath } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import { seenNow } from "../read-record.js";
import type { ImageBlock, Tool, ToolContext } from "../types.js";
import { describeFsError, NODE_FS, resolveInput, type ToolFs } from "./fs.js";
import { isNotebookPath, parseNotebook, renderNotebook } from "./notebook.js";
import { readLines } from "./read-lines.js";

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE = 2000;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** A larger notebook is read as its JSON text, in bounded memory. */
const MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;
const IMAGE_TYPES: Record<string, ImageBlock["source"]["media_type"]> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const schema = {
  type: "object",
  properties: {
    file_path: {
      type: "string",
      description: "The file to read: absolute, or relative to the working folder.",
    },
    offset: {
      type: "integer",
      description: "The line to start from (1-based). Only for files too long to read at once.",
    },
    limit: { type: "integer", description: `How many lines to read (default ${READ_DEFAULT_LIMIT}).` },
  },
  required: ["file_path"],
} as const;

/** Read: `cat -n` style numbered lines; images come back as image blocks. */
export function createReadTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "Read",
    description: `Reads a file. Text comes back as numbered lines (cat -n style), ${READ_DEFAULT_LIMIT} lines by default; use offset and limit for long files. Lines over ${READ_MAX_LINE} characters are cut. PNG, JPEG, GIF and WebP files come back as images; a Jupyter notebook (.ipynb) as its cells, with the ids NotebookEdit takes. A folder is an error: use Glob to list one.`,
    inputSchema: schema,
    permission: judgesPath("file_path"),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      const file = resolveInput(ctx.cwd, input.file_path);
      const offset = input.offset ?? 1;
      const limit = input.limit ?? READ_DEFAULT_LIMIT;
      if (offset < 1) return fail(`offset must be 1 or more (lines count from 1), got ${offset}.`);
      if (limit < 1) return fail(`limit must be 1 or more, got ${limit}.`);
      let st: Awaited<ReturnType<ToolFs["stat"]>>;
      try {
        st = await fs.stat(file);
      } catch (e) {
        return fail(`Cannot read ${describeFsError(e, file)}.`);
      }
      if (st.isDirectory()) return fail(`${file} is a folder, not a file. Use Glob to list what it holds.`);
      if (!st.isFile())
        return fail(`${file} is not a regular file (a device, pipe or socket); Read reads files only.`);
      const image = IMAGE_TYPES[path.extname(file).toLowerCase()];
      if (image) return readImage(fs, file, image, st, ctx);
      if (ctx.signal.aborted) return fail("Interrupted.");
      let read: Awaited<ReturnType<typeof readLines>>;
      try {
        const notebook =
          isNotebookPath(file) && st.size <= MAX_NOTEBOOK_BYTES ? await notebookText(fs, file) : undefined;
        const chunks = notebook === undefined ? chunksOf(fs, file) : oneChunk(notebook);
        read = await readLines(chunks, { offset, limit, maxLine: READ_MAX_LINE }, ctx.signal);
      } catch (e) {
        return fail(`Cannot read ${describeFsError(e, file)}.`);
      }
      if (read.aborted) return fail("Interrupted.");
      if (read.binary)
        return fail(`${file} is a binary file (${st.size} bytes); Read shows text files only.`);
      // Only a file whose text the model has seen counts as read (Write and Edit ask).
      ctx.readRecord.markRead(file, seenNow(st));
      return ok(formatLines(read, offset, file));
    },
  });
}

async function readImage(
  fs: ToolFs,
  file: string,
  image: ImageBlock["source"]["media_type"],
  st: { size: number; mtimeMs: number },
  ctx: Pick<ToolContext, "readRecord">,
) {
  if (st.size > MAX_IMAGE_BYTES)
    return fail(`${file} is ${st.size} bytes, more than Read takes for an image (${MAX_IMAGE_BYTES}).`);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    return fail(`Cannot read ${describeFsError(e, file)}.`);
  }
  ctx.readRecord.markRead(file, seenNow(st));
  return ok([
    { type: "text", text: `${file} (${image}, ${bytes.length} bytes)` },
    { type: "image", source: { type: "base64", media_type: image, data: bytes.toString("base64") } },
  ]);
}

/** The file in chunks: streamed when the file system can, else read whole (an injected one in tests). */
async function* chunksOf(fs: ToolFs, file: string): AsyncIterable<Buffer> {
  if (fs.readStream) yield* fs.readStream(file);
  else yield await fs.readFile(file);
}

/** A notebook's cells as text; undefined when the file is not a notebook's JSON (it is read as text). */
async function notebookText(fs: ToolFs, file: string): Promise<string | undefined> {
  const parsed = parseNotebook((await fs.readFile(file)).toString("utf8"));
  return parsed.ok ? renderNotebook(parsed.notebook) : undefined;
}

async function* oneChunk(text: string): AsyncIterable<Buffer> {
  yield Buffer.from(text, "utf8");
}

/** `cat -n` numbering of the lines read, long lines cut, with notes where it stops. */
function formatLines(r: Awaited<ReturnType<typeof readLines>>, offset: number, file: string): string {
  if (r.bytes === 0) return `${file} exists but is empty.`;
  if (offset > r.total)
    return `${file} has ${r.total} line${r.total === 1 ? "" : "s"}; offset ${offset} is past its end.`;
  const out = r.lines.map((l) => {
    const shown = l.length > READ_MAX_LINE ? `${l.text}… [line cut: ${l.length} characters]` : l.text;
    return `${String(l.n).padStart(6)}\t${shown}`;
  });
  const end = offset - 1 + r.lines.length;
  if (end < r.total)
    out.push(
      `… ${r.total - end} more line${r.total - end === 1 ? "" : "s"}; read on with offset ${end + 1}.`,
    );
  return out.join("\n");
}
