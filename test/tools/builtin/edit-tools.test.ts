import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createLsTool,
  createMultiEditTool,
  createNotebookEditTool,
  createReadTool,
} from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { type LoggedContext, run, text, toolContext, writeFiles } from "../../support/tools.js";

let dir: string;
let cleanup: () => void;
let ctx: LoggedContext;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  ctx = toolContext(dir);
});
afterEach(() => cleanup());

const read = createReadTool();
const multi = createMultiEditTool();
const notebookEdit = createNotebookEditTool();
const ls = createLsTool();
const at = (rel: string) => path.join(dir, rel);
const body = (rel: string) => readFileSync(at(rel), "utf8");

describe("MultiEdit", () => {
  beforeEach(() => writeFiles(dir, { "m.txt": "alpha beta gamma beta\n" }));

  it("applies the edits in order, each on the text the previous one left", async () => {
    await run(read, { file_path: "m.txt" }, ctx);
    const r = await run(
      multi,
      {
        file_path: "m.txt",
        edits: [
          { old_string: "alpha", new_string: "ALPHA" },
          { old_string: "beta", new_string: "b", replace_all: true },
          { old_string: "ALPHA b", new_string: "first" },
        ],
      },
      ctx,
    );
    expect(r).toEqual({ content: `Edited ${at("m.txt")}: 3 edits, 4 replacements.`, isError: false });
    expect(body("m.txt")).toBe("first gamma b\n");
  });

  it("is all or nothing: one edit that cannot be made leaves the file untouched and says which", async () => {
    await run(read, { file_path: "m.txt" }, ctx);
    const r = await run(
      multi,
      {
        file_path: "m.txt",
        edits: [
          { old_string: "alpha", new_string: "A" },
          { old_string: "beta", new_string: "B" },
        ],
      },
      ctx,
    );
    expect(r).toEqual({
      content: `Edit 2 of 2: old_string occurs 2 times in ${at("m.txt")}: "beta". Give more surrounding text to make it unique, or set replace_all. No edit was applied; ${at("m.txt")} is unchanged.`,
      isError: true,
    });
    expect(body("m.txt")).toBe("alpha beta gamma beta\n");
    const missing = await run(
      multi,
      {
        file_path: "m.txt",
        edits: [
          { old_string: "gamma", new_string: "g" },
          { old_string: "zeta", new_string: "z" },
        ],
      },
      ctx,
    );
    expect(text(missing)).toMatch(/^Edit 2 of 2: old_string was not found/);
    expect(body("m.txt")).toBe("alpha beta gamma beta\n");
  });

  it("keeps Edit's rules: read first, not changed on disk since, some edit to make", async () => {
    expect(
      text(await run(multi, { file_path: "m.txt", edits: [{ old_string: "a", new_string: "b" }] }, ctx)),
    ).toBe(`${at("m.txt")} has not been read in this run. Read it first, then edit.`);
    await run(read, { file_path: "m.txt" }, ctx);
    expect(text(await run(multi, { file_path: "m.txt", edits: [] }, ctx))).toBe(
      "edits is empty; give at least one replacement.",
    );
    writeFileSync(at("m.txt"), "changed");
    const later = new Date(Date.now() + 5000);
    utimesSync(at("m.txt"), later, later);
    const r = await run(
      multi,
      { file_path: "m.txt", edits: [{ old_string: "changed", new_string: "x" }] },
      ctx,
    );
    expect(text(r)).toBe(`${at("m.txt")} has changed on disk since it was read. Read it again, then write.`);
    expect(body("m.txt")).toBe("changed");
  });
});

const NOTEBOOK = {
  cells: [
    {
      cell_type: "markdown",
      id: "intro",
      metadata: {},
      source: ["# Title\n", "Some text"],
    },
    {
      cell_type: "code",
      execution_count: 3,
      id: "calc",
      metadata: {},
      outputs: [{ output_type: "stream", name: "stdout", text: ["42\n"] }],
      source: ["print(6 * 7)"],
    },
  ],
  metadata: { kernelspec: { name: "python3" } },
  nbformat: 4,
  nbformat_minor: 5,
};

const notebook = () => JSON.parse(body("n.ipynb")) as typeof NOTEBOOK;

describe("NotebookEdit and Read of a notebook", () => {
  beforeEach(() => writeFiles(dir, { "n.ipynb": `${JSON.stringify(NOTEBOOK, null, 1)}\n` }));

  it("Read shows the cells with their ids, and their text outputs", async () => {
    expect(text(await run(read, { file_path: "n.ipynb" }, ctx))).toBe(
      [
        '     1\t<cell id="intro" type="markdown">',
        "     2\t# Title",
        "     3\tSome text",
        "     4\t</cell>",
        '     5\t<cell id="calc" type="code">',
        "     6\tprint(6 * 7)",
        "     7\t</cell>",
        "     8\t<output>",
        "     9\t42",
        "    10\t</output>",
      ].join("\n"),
    );
  });

  it("replaces a cell's source (its outputs go), keeping the file's layout", async () => {
    await run(read, { file_path: "n.ipynb" }, ctx);
    const r = await run(
      notebookEdit,
      { notebook_path: "n.ipynb", cell_id: "calc", new_source: "x = 1\nx" },
      ctx,
    );
    expect(r).toEqual({ content: `Replaced cell calc in ${at("n.ipynb")}.`, isError: false });
    const cell = notebook().cells[1];
    expect(cell).toEqual({
      cell_type: "code",
      execution_count: null,
      id: "calc",
      metadata: {},
      outputs: [],
      source: ["x = 1\n", "x"],
    });
    expect(body("n.ipynb")).toMatch(/^\{\n "cells": \[\n {2}\{/);
    expect(body("n.ipynb").endsWith("}\n")).toBe(true);
  });

  it("inserts after a cell (or at the start), with a fresh id, and deletes", async () => {
    await run(read, { file_path: "n.ipynb" }, ctx);
    const inserted = await run(
      notebookEdit,
      {
        notebook_path: "n.ipynb",
        cell_id: "intro",
        new_source: "## Part",
        cell_type: "markdown",
        edit_mode: "insert",
      },
      ctx,
    );
    expect(text(inserted)).toMatch(/^Inserted markdown cell [0-9a-f]{8} after cell intro in /);
    expect(notebook().cells.map((c) => c.cell_type)).toEqual(["markdown", "markdown", "code"]);
    await run(
      notebookEdit,
      { notebook_path: "n.ipynb", new_source: "import os", cell_type: "code", edit_mode: "insert" },
      ctx,
    );
    expect(notebook().cells[0]).toMatchObject({ cell_type: "code", source: ["import os"], outputs: [] });
    const deleted = await run(
      notebookEdit,
      { notebook_path: "n.ipynb", cell_id: "intro", new_source: "", edit_mode: "delete" },
      ctx,
    );
    expect(text(deleted)).toBe(`Deleted cell intro in ${at("n.ipynb")}.`);
    expect(notebook().cells.some((c) => c.id === "intro")).toBe(false);
  });

  it("says clearly what is wrong: an unknown cell, a missing type, bad JSON, not a notebook, not read", async () => {
    expect(
      text(await run(notebookEdit, { notebook_path: "n.ipynb", cell_id: "calc", new_source: "" }, ctx)),
    ).toBe(`${at("n.ipynb")} has not been read in this run. Read it first, then edit.`);
    await run(read, { file_path: "n.ipynb" }, ctx);
    expect(
      text(await run(notebookEdit, { notebook_path: "n.ipynb", cell_id: "nope", new_source: "" }, ctx)),
    ).toBe(`No cell 'nope' in ${at("n.ipynb")}; its cells are: intro, calc. Read the notebook to see them.`);
    expect(
      text(await run(notebookEdit, { notebook_path: "n.ipynb", new_source: "x", edit_mode: "insert" }, ctx)),
    ).toBe("cell_type is required to insert a cell: code or markdown.");
    expect(text(await run(notebookEdit, { notebook_path: "n.ipynb", new_source: "x" }, ctx))).toBe(
      "cell_id is required to replace a cell.",
    );
    writeFiles(dir, { "bad.ipynb": "{ not json", "a.py": "x" });
    await run(read, { file_path: "bad.ipynb" }, ctx);
    const bad = await run(notebookEdit, { notebook_path: "bad.ipynb", cell_id: "a", new_source: "" }, ctx);
    expect(text(bad)).toMatch(
      /^.*bad\.ipynb cannot be edited as a notebook: its JSON does not parse \(.*\)\. The file was not changed\.$/,
    );
    expect(body("bad.ipynb")).toBe("{ not json");
    expect(text(await run(notebookEdit, { notebook_path: "a.py", new_source: "" }, ctx))).toBe(
      `${at("a.py")} is not a .ipynb notebook; use Edit for other files.`,
    );
  });

  it("names the cells of an old notebook by position (cell-N)", async () => {
    writeFiles(dir, {
      "old.ipynb": JSON.stringify({
        cells: [{ cell_type: "code", source: "a", outputs: [] }],
        nbformat: 4,
        nbformat_minor: 2,
      }),
    });
    expect(text(await run(read, { file_path: "old.ipynb" }, ctx))).toContain(
      '<cell id="cell-0" type="code">',
    );
    await run(notebookEdit, { notebook_path: "old.ipynb", cell_id: "cell-0", new_source: "b" }, ctx);
    const cell = JSON.parse(body("old.ipynb")).cells[0];
    expect(cell).toEqual({ cell_type: "code", source: ["b"], outputs: [], execution_count: null });
  });
});

describe("LS", () => {
  beforeEach(() =>
    writeFiles(dir, { "b.txt": "", "a.log": "", ".env": "", "src/x.ts": "", "node_modules/m/i.js": "" }),
  );

  it("lists one folder in name order, folders marked with /", async () => {
    expect(await run(ls, { path: dir }, ctx)).toEqual({
      content: `${dir}/\n  .env\n  a.log\n  b.txt\n  node_modules/\n  src/`,
      isError: false,
    });
  });

  it("leaves out what ignore matches (by name, or by path for a glob with '/')", async () => {
    const r = await run(ls, { path: dir, ignore: ["*.log", "node_modules", `${dir}/src`] }, ctx);
    expect(text(r)).toBe(`${dir}/\n  .env\n  b.txt`);
  });

  it("leaves out entries the run may not read", async () => {
    const hidden = { ...ctx, mayAccess: (p: string) => !p.endsWith(".env") };
    expect(text(await run(ls, { path: dir }, hidden))).not.toContain(".env");
  });

  it("says how many more there are past 1,000 entries", async () => {
    writeFiles(
      dir,
      Object.fromEntries(Array.from({ length: 1003 }, (_, i) => [`many/f${String(i).padStart(4, "0")}`, ""])),
    );
    const lines = text(await run(ls, { path: "many" }, ctx)).split("\n");
    expect(lines).toHaveLength(1002);
    expect(lines[1000]).toBe("  f0999");
    expect(lines[1001]).toBe("… and 3 more; narrow it with ignore, or use Glob.");
  });

  it("refuses a file and a missing folder, and says an empty one is empty", async () => {
    expect(text(await run(ls, { path: "b.txt" }, ctx))).toBe(
      `${at("b.txt")} is a file, not a folder; use Read to read it.`,
    );
    expect(text(await run(ls, { path: "nope" }, ctx))).toBe(`Cannot list ${at("nope")} does not exist.`);
    writeFiles(dir, { "empty/.keep": "" });
    expect(text(await run(ls, { path: "empty", ignore: [".keep"] }, ctx))).toBe(`${at("empty")}/ is empty.`);
  });
});
