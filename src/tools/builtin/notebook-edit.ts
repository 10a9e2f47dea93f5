import { judgesPath } from "../../permissions/subject-specs.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";
import { checkEditable, readEditable, writeEdited } from "./edit-file.js";
import { NODE_FS, resolveInput, type ToolFs } from "./fs.js";
import {
  type Cell,
  cellIdOf,
  findCell,
  formatNotebook,
  isNotebookPath,
  type Notebook,
  parseNotebook,
  sourceLines,
  wantsCellIds,
} from "./notebook.js";

const schema = {
  type: "object",
  properties: {
    notebook_path: {
      type: "string",
      description: "The .ipynb file: absolute, or relative to the working folder.",
    },
    cell_id: {
      type: "string",
      description:
        "The cell, by the id Read shows. insert puts the new cell after it (at the start without one).",
    },
    new_source: { type: "string", description: "The cell's new source (ignored by delete)." },
    cell_type: {
      type: "string",
      enum: ["code", "markdown"],
      description: "The cell's type: required to insert; with replace, changes it.",
    },
    edit_mode: {
      type: "string",
      enum: ["replace", "insert", "delete"],
      description: "replace (default) the cell's source, insert a new cell, or delete the cell.",
    },
  },
  required: ["notebook_path", "new_source"],
} as const;

type Change = { ok: true; said: string } | { ok: false; message: string };

/** NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook read in this run. */
export function createNotebookEditTool(deps: { fs?: ToolFs } = {}): Tool {
  const fs = deps.fs ?? NODE_FS;
  return defineTool<typeof schema>({
    name: "NotebookEdit",
    description:
      "Edits one cell of a Jupyter notebook (.ipynb) that was read with Read in this run: replace its source (edit_mode replace, the default), insert a new cell after cell_id (insert, with cell_type), or delete it (delete). Cells are named by the ids Read shows. A replaced code cell loses its outputs.",
    inputSchema: schema,
    permission: judgesPath("notebook_path", { family: "Edit" }),
    concurrency: "sequential",
    interrupt: "not-interruptible",
    precheck: (input, ctx) => checkEditable(fs, resolveInput(ctx.cwd, input.notebook_path), ctx),
    async execute(input, ctx) {
      const file = resolveInput(ctx.cwd, input.notebook_path);
      if (!isNotebookPath(file)) return fail(`${file} is not a .ipynb notebook; use Edit for other files.`);
      const refused = await checkEditable(fs, file, ctx);
      if (refused) return fail(refused);
      const read = await readEditable(fs, file, "NotebookEdit");
      if (!read.ok) return fail(read.message);
      const parsed = parseNotebook(read.text);
      if (!parsed.ok)
        return fail(`${file} cannot be edited as a notebook: ${parsed.problem}. The file was not changed.`);
      const nb = parsed.notebook;
      const change = changeCell(nb, input, file);
      if (!change.ok) return fail(change.message);
      const failed = await writeEdited(fs, file, formatNotebook(nb, read.text), ctx);
      return failed ? fail(failed) : ok(`${change.said} in ${file}.`);
    },
  });
}

/** The one change the call asks for, made to `nb` in memory; or why it cannot be made. */
function changeCell(
  nb: Notebook,
  input: { cell_id?: string; new_source: string; cell_type?: "code" | "markdown"; edit_mode?: string },
  file: string,
): Change {
  const mode = input.edit_mode ?? "replace";
  const at = input.cell_id === undefined ? undefined : findCell(nb, input.cell_id);
  if (at === -1) return { ok: false, message: unknownCell(nb, input.cell_id as string, file) };
  if (mode === "insert") {
    if (!input.cell_type)
      return { ok: false, message: "cell_type is required to insert a cell: code or markdown." };
    const cell = newCell(nb, input.cell_type, input.new_source);
    const index = at === undefined ? 0 : at + 1;
    nb.cells.splice(index, 0, cell);
    const where = at === undefined ? "at the start" : `after cell ${cellIdOf(nb.cells[at] as Cell, at)}`;
    return { ok: true, said: `Inserted ${input.cell_type} cell ${cellIdOf(cell, index)} ${where}` };
  }
  if (at === undefined) return { ok: false, message: `cell_id is required to ${mode} a cell.` };
  const cell = nb.cells[at] as Cell;
  const id = cellIdOf(cell, at);
  if (mode === "delete") {
    nb.cells.splice(at, 1);
    return { ok: true, said: `Deleted cell ${id}` };
  }
  cell.source = sourceLines(input.new_source);
  if (input.cell_type) cell.cell_type = input.cell_type;
  if (cell.cell_type === "code") {
    cell.outputs = [];
    cell.execution_count = null;
  } else {
    delete cell.outputs;
    delete cell.execution_count;
  }
  return { ok: true, said: `Replaced cell ${id}` };
}

function newCell(nb: Notebook, type: "code" | "markdown", source: string): Cell {
  const id = wantsCellIds(nb) ? { id: nodeCrypto().randomBytes(4).toString("hex") } : {};
  return type === "code"
    ? {
        cell_type: "code",
        execution_count: null,
        ...id,
        metadata: {},
        outputs: [],
        source: sourceLines(source),
      }
    : { cell_type: "markdown", ...id, metadata: {}, source: sourceLines(source) };
}

function unknownCell(nb: Notebook, id: string, file: string): string {
  const ids = nb.cells.map((c, i) => cellIdOf(c, i));
  const shown = ids.length > 20 ? [...ids.slice(0, 20), `… (${ids.length} in all)`] : ids;
  return `No cell '${id}' in ${file}; its cells are: ${shown.join(", ") || "none"}. Read the notebook to see them.`;
}
