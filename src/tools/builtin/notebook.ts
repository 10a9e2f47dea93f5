/**
 * Jupyter notebooks (.ipynb, nbformat 4) as the file tools see them: parsed from their JSON, cells
 * found by id, and shown to the model as text (Read) with the ids NotebookEdit takes.
 */

export interface Cell {
  cell_type?: unknown;
  id?: unknown;
  source?: unknown;
  outputs?: unknown;
  execution_count?: unknown;
  [key: string]: unknown;
}

export interface Notebook {
  cells: Cell[];
  nbformat?: unknown;
  nbformat_minor?: unknown;
  [key: string]: unknown;
}

export function isNotebookPath(file: string): boolean {
  return file.toLowerCase().endsWith(".ipynb");
}

/** The notebook in `text`, or why it is not one. */
export function parseNotebook(
  text: string,
): { ok: true; notebook: Notebook } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `its JSON does not parse (${(e as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, problem: "its JSON is not an object" };
  const cells = (value as { cells?: unknown }).cells;
  if (!Array.isArray(cells) || cells.some((c) => typeof c !== "object" || c === null || Array.isArray(c)))
    return { ok: false, problem: "it has no list of cells" };
  return { ok: true, notebook: value as Notebook };
}

/** A cell's id: its own, or `cell-N` (its position) in a notebook too old to give cells ids. */
export function cellIdOf(cell: Cell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index}`;
}

/** The position of the cell `id` names (its own id first, then `cell-N`), or -1. */
export function findCell(notebook: Notebook, id: string): number {
  const own = notebook.cells.findIndex((c) => c.id === id);
  if (own !== -1) return own;
  const m = /^cell-(\d+)$/.exec(id);
  const n = m ? Number(m[1]) : -1;
  return n >= 0 && n < notebook.cells.length ? n : -1;
}

/** nbformat 4.5 and later give every cell an id. */
export function wantsCellIds(notebook: Notebook): boolean {
  const major = Number(notebook.nbformat);
  const minor = Number(notebook.nbformat_minor);
  return major > 4 || (major === 4 && minor >= 5);
}

/** Source as nbformat writes it: a list of lines, each keeping its line break. */
export function sourceLines(source: string): string[] {
  return source === "" ? [] : source.split(/(?<=\n)/);
}

export function sourceText(source: unknown): string {
  if (typeof source === "string") return source;
  return Array.isArray(source) ? source.filter((s) => typeof s === "string").join("") : "";
}

/** The notebook as text: each cell under a header with its id and type, then its text outputs. */
export function renderNotebook(notebook: Notebook): string {
  const parts: string[] = [];
  notebook.cells.forEach((cell, i) => {
    const type = typeof cell.cell_type === "string" ? cell.cell_type : "unknown";
    parts.push(
      `<cell id="${cellIdOf(cell, i)}" type="${type}">`,
      trimEnd(sourceText(cell.source)),
      "</cell>",
    );
    const outputs = Array.isArray(cell.outputs) ? cell.outputs : [];
    const shown = outputs.map(outputText).filter((t) => t !== "");
    if (shown.length > 0) parts.push("<output>", trimEnd(shown.join("\n")), "</output>");
  });
  return parts.length > 0 ? parts.join("\n") : "(a notebook with no cells)";
}

const trimEnd = (s: string) => s.replace(/\s+$/, "");

function outputText(output: unknown): string {
  if (typeof output !== "object" || output === null) return "";
  const o = output as Record<string, unknown>;
  if (o.output_type === "stream") return sourceText(o.text);
  if (o.output_type === "error") return `${String(o.ename ?? "Error")}: ${String(o.evalue ?? "")}`;
  const data = typeof o.data === "object" && o.data !== null ? (o.data as Record<string, unknown>) : {};
  if (Object.hasOwn(data, "text/plain")) return sourceText(data["text/plain"]);
  const kinds = Object.keys(data);
  return kinds.length > 0 ? `[${kinds.join(", ")} output]` : "";
}

/** The notebook written back as JSON, indented as it was (nbformat's one space by default). */
export function formatNotebook(notebook: Notebook, original: string): string {
  const indent = /^\{\r?\n([ \t]+)"/.exec(original)?.[1] ?? " ";
  return `${JSON.stringify(notebook, null, indent)}${original.endsWith("\n") ? "\n" : ""}`;
}
