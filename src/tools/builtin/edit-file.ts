import { isUtf8 } from "node:buffer";
import { fail, ok } from "../define-tool.js";
import { seenNow } from "../read-record.js";
import type { ToolContext, ToolResult } from "../types.js";
import { describeFsError, looksBinary, type ToolFs } from "./fs.js";
import { staleness } from "./write.js";

/** One replacement, in Edit's and MultiEdit's shape. */
export interface TextEdit {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

type Edited = { ok: true; text: string; count: number } | { ok: false; message: string };

const quote = (s: string) => (s.length > 200 ? `${JSON.stringify(s.slice(0, 200))}…` : JSON.stringify(s));

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * Why a file may not be changed by an edit now: this run has not read it, or it changed on disk
 * since. Undefined when it may. Shared by Edit, MultiEdit and NotebookEdit.
 */
export async function checkEditable(
  fs: ToolFs,
  file: string,
  ctx: Pick<ToolContext, "readRecord">,
): Promise<string | undefined> {
  if (ctx.readRecord.readAt(file) === undefined)
    return `${file} has not been read in this run. Read it first, then edit.`;
  return staleness(fs, file, ctx);
}

/** The file as UTF-8 text, or why an edit must not touch it. */
export async function readEditable(
  fs: ToolFs,
  file: string,
  tool: string,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  try {
    const bytes = await fs.readFile(file);
    if (looksBinary(bytes) || !isUtf8(bytes))
      return {
        ok: false,
        message: `${file} is not UTF-8 text; ${tool} would change bytes it did not mean to. The file was not changed.`,
      };
    return { ok: true, text: bytes.toString("utf8") };
  } catch (e) {
    return { ok: false, message: `Cannot edit ${describeFsError(e, file)}.` };
  }
}

/** Writes the edited text and records it as read (the run has seen what it wrote). */
export async function writeEdited(
  fs: ToolFs,
  file: string,
  text: string,
  ctx: ToolContext,
): Promise<string | undefined> {
  try {
    await fs.writeFile(file, text);
    ctx.readRecord.markRead(file, seenNow(await fs.stat(file)));
    return undefined;
  } catch (e) {
    return `Cannot edit ${describeFsError(e, file)}.`;
  }
}

/** One edit of a text: the new text and how many occurrences it replaced, or why it cannot be made. Pure. */
export function applyEdit(text: string, edit: TextEdit, file: string): Edited {
  if (edit.old_string === "")
    return { ok: false, message: "old_string is empty; to create a file, use Write." };
  if (edit.old_string === edit.new_string)
    return { ok: false, message: "old_string and new_string are the same; nothing to change." };
  let oldString = edit.old_string;
  let newString = edit.new_string;
  // A file with CRLF line ends still matches an old_string written with LF.
  if (!text.includes(oldString) && text.includes("\r\n") && oldString.includes("\n")) {
    oldString = oldString.replace(/\r?\n/g, "\r\n");
    newString = newString.replace(/\r?\n/g, "\r\n");
  }
  const count = countOccurrences(text, oldString);
  if (count === 0)
    return {
      ok: false,
      message: `old_string was not found in ${file}: ${quote(edit.old_string)}. Read the file again and copy the text exactly.`,
    };
  if (count > 1 && !edit.replace_all)
    return {
      ok: false,
      message: `old_string occurs ${count} times in ${file}: ${quote(edit.old_string)}. Give more surrounding text to make it unique, or set replace_all.`,
    };
  const updated = edit.replace_all
    ? text.split(oldString).join(newString)
    : text.replace(oldString, () => newString);
  return { ok: true, text: updated, count: edit.replace_all ? count : 1 };
}

/**
 * Edits a file this run has read: every edit applied in order to the text the previous one left,
 * then one write. All or nothing: when one cannot be made the file is not touched, and the
 * message says which one and why. `done` words the success from the replacements each made.
 */
export async function editFile(
  fs: ToolFs,
  file: string,
  edits: readonly TextEdit[],
  ctx: ToolContext,
  tool: string,
  done: (counts: readonly number[]) => string,
): Promise<ToolResult> {
  const refused = await checkEditable(fs, file, ctx);
  if (refused) return fail(refused);
  const read = await readEditable(fs, file, tool);
  if (!read.ok) return fail(read.message);
  let text = read.text;
  const counts: number[] = [];
  for (const [i, edit] of edits.entries()) {
    const r = applyEdit(text, edit, file);
    if (!r.ok)
      return fail(
        edits.length === 1
          ? r.message
          : `Edit ${i + 1} of ${edits.length}: ${r.message} No edit was applied; ${file} is unchanged.`,
      );
    text = r.text;
    counts.push(r.count);
  }
  const failed = await writeEdited(fs, file, text, ctx);
  return failed ? fail(failed) : ok(done(counts));
}
