import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, createReadTool, createWriteTool } from "../../../src/tools/index.js";
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
const write = createWriteTool();
const edit = createEditTool();
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("Read", () => {
  it("numbers lines as cat -n does and records the file as read", async () => {
    writeFiles(dir, { "a.txt": "alpha\nbeta\n" });
    const r = await run(read, { file_path: "a.txt" }, ctx);
    expect(r).toEqual({ content: "     1\talpha\n     2\tbeta", isError: false });
    const st = statSync(path.join(dir, "a.txt"));
    expect(ctx.readRecord.readAt(path.join(dir, "a.txt"))).toEqual({ mtimeMs: st.mtimeMs, size: st.size });
  });

  it("reads 2,000 lines by default and says how to read on", async () => {
    writeFiles(dir, { "long.txt": lines(2500) });
    const t = text(await run(read, { file_path: path.join(dir, "long.txt") }, ctx));
    const shown = t.split("\n");
    expect(shown).toHaveLength(2001);
    expect(shown[1999]).toBe("  2000\tline 2000");
    expect(shown[2000]).toBe("… 500 more lines; read on with offset 2001.");
  });

  it("honours offset and limit, including the last line and past the end", async () => {
    writeFiles(dir, { "f.txt": lines(10) });
    expect(text(await run(read, { file_path: "f.txt", offset: 9, limit: 5 }, ctx))).toBe(
      "     9\tline 9\n    10\tline 10",
    );
    expect(text(await run(read, { file_path: "f.txt", offset: 10 }, ctx))).toBe("    10\tline 10");
    expect(text(await run(read, { file_path: "f.txt", offset: 3, limit: 1 }, ctx))).toBe(
      "     3\tline 3\n… 7 more lines; read on with offset 4.",
    );
    expect(await run(read, { file_path: "f.txt", offset: 11 }, ctx)).toEqual({
      content: `${path.join(dir, "f.txt")} has 10 lines; offset 11 is past its end.`,
      isError: false,
    });
  });

  it("refuses offset or limit below 1", async () => {
    writeFiles(dir, { "f.txt": "x" });
    expect(await run(read, { file_path: "f.txt", offset: 0 }, ctx)).toEqual({
      content: "offset must be 1 or more (lines count from 1), got 0.",
      isError: true,
    });
    expect((await run(read, { file_path: "f.txt", limit: 0 }, ctx)).isError).toBe(true);
  });

  it("cuts lines over 2,000 characters with a marker, and keeps a line of exactly 2,000", async () => {
    writeFiles(dir, { "w.txt": `${"a".repeat(2000)}\n${"b".repeat(2500)}\n` });
    const [first, second] = text(await run(read, { file_path: "w.txt" }, ctx)).split("\n");
    expect(first).toBe(`     1\t${"a".repeat(2000)}`);
    expect(second).toBe(`     2\t${"b".repeat(2000)}… [line cut: 2500 characters]`);
  });

  it("says an empty file is empty, reads CRLF files cleanly, and refuses folders and binaries", async () => {
    writeFiles(dir, {
      "empty.txt": "",
      "crlf.txt": "one\r\ntwo\r\n",
      "bin.dat": Buffer.from([1, 2, 0, 3]),
      "sub/x": "x",
    });
    expect(text(await run(read, { file_path: "empty.txt" }, ctx))).toBe(
      `${path.join(dir, "empty.txt")} exists but is empty.`,
    );
    expect(text(await run(read, { file_path: "crlf.txt" }, ctx))).toBe("     1\tone\n     2\ttwo");
    const folder = await run(read, { file_path: "sub" }, ctx);
    expect(folder.isError && text(folder)).toContain("is a folder, not a file. Use Glob");
    expect(await run(read, { file_path: "bin.dat" }, ctx)).toEqual({
      content: `${path.join(dir, "bin.dat")} is a binary file (4 bytes); Read shows text files only.`,
      isError: true,
    });
    expect(await run(read, { file_path: "nope.txt" }, ctx)).toEqual({
      content: `Cannot read ${path.join(dir, "nope.txt")} does not exist.`,
      isError: true,
    });
  });

  it("refuses devices and pipes, and never counts a refused binary as read", async () => {
    expect(await run(read, { file_path: "/dev/zero" }, ctx)).toEqual({
      content: "/dev/zero is not a regular file (a device, pipe or socket); Read reads files only.",
      isError: true,
    });
    writeFiles(dir, { "bin.dat": Buffer.from([0, 0xff, 0x41]) });
    await run(read, { file_path: "bin.dat" }, ctx);
    expect(ctx.readRecord.readAt(path.join(dir, "bin.dat"))).toBeUndefined();
    expect((await run(edit, { file_path: "bin.dat", old_string: "A", new_string: "B" }, ctx)).isError).toBe(
      true,
    );
  });

  it("returns images as image blocks", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    writeFiles(dir, { "p.png": png });
    const r = await run(read, { file_path: "p.png" }, ctx);
    expect(Array.isArray(r.content) && r.content[1]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: png.toString("base64") },
    });
  });
});

describe("Write", () => {
  it("creates a file and its folders", async () => {
    const r = await run(write, { file_path: "deep/er/new.txt", content: "a\nb" }, ctx);
    expect(r).toEqual({ content: `Created ${path.join(dir, "deep/er/new.txt")} (2 lines).`, isError: false });
    expect(readFileSync(path.join(dir, "deep/er/new.txt"), "utf8")).toBe("a\nb");
  });

  it("refuses to overwrite a file this run has not read, then allows it after Read", async () => {
    writeFiles(dir, { "keep.txt": "precious" });
    const refused = await run(write, { file_path: "keep.txt", content: "gone" }, ctx);
    expect(refused).toEqual({
      content: `${path.join(dir, "keep.txt")} already exists and has not been read in this run. Read it first, then write.`,
      isError: true,
    });
    expect(readFileSync(path.join(dir, "keep.txt"), "utf8")).toBe("precious");
    await run(read, { file_path: "keep.txt" }, ctx);
    expect((await run(write, { file_path: "keep.txt", content: "new" }, ctx)).isError).toBe(false);
    expect(readFileSync(path.join(dir, "keep.txt"), "utf8")).toBe("new");
  });

  it("refuses when the file changed on disk since it was read", async () => {
    writeFiles(dir, { "c.txt": "v1" });
    await run(read, { file_path: "c.txt" }, ctx);
    writeFileSync(path.join(dir, "c.txt"), "v2 by someone else");
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(dir, "c.txt"), later, later);
    const r = await run(write, { file_path: "c.txt", content: "v3" }, ctx);
    expect(text(r)).toBe(
      `${path.join(dir, "c.txt")} has changed on disk since it was read. Read it again, then write.`,
    );
  });

  // A rewrite within one tick of the file system's clock keeps the modification time; an older time
  // is a file put back from elsewhere. Either way the run's picture of the file is out of date.
  it.each([
    ["the same time, another size", "v2 by someone else", 0],
    ["an earlier time, the same size", "v9", -5000],
  ])("refuses when the file changed on disk since it was read: %s", async (_, content, shiftMs) => {
    writeFiles(dir, { "c.txt": "v1" });
    const file = path.join(dir, "c.txt");
    // A time in whole seconds, which utimes sets exactly again.
    const readAt = new Date(1_700_000_000_000);
    utimesSync(file, readAt, readAt);
    await run(read, { file_path: "c.txt" }, ctx);
    writeFileSync(file, content);
    const then = new Date(readAt.getTime() + shiftMs);
    utimesSync(file, then, then);
    expect(statSync(file).mtimeMs - readAt.getTime()).toBe(shiftMs);
    for (const [tool, input] of [
      [write, { file_path: "c.txt", content: "v3" }],
      [edit, { file_path: "c.txt", old_string: "v", new_string: "w" }],
    ] as const) {
      expect(text(await run(tool, input, ctx))).toBe(
        `${file} has changed on disk since it was read. Read it again, then write.`,
      );
    }
    expect(readFileSync(file, "utf8")).toBe(content);
  });
});

describe("Edit", () => {
  beforeEach(() => writeFiles(dir, { "e.txt": "one two two three\n" }));

  it("requires a prior Read", async () => {
    expect(await run(edit, { file_path: "e.txt", old_string: "one", new_string: "1" }, ctx)).toEqual({
      content: `${path.join(dir, "e.txt")} has not been read in this run. Read it first, then edit.`,
      isError: true,
    });
  });

  it("replaces a unique occurrence, refuses ambiguous and missing ones, and replaces all on request", async () => {
    await run(read, { file_path: "e.txt" }, ctx);
    expect(text(await run(edit, { file_path: "e.txt", old_string: "one", new_string: "1" }, ctx))).toBe(
      `Edited ${path.join(dir, "e.txt")}: replaced 1 occurrence.`,
    );
    expect(text(await run(edit, { file_path: "e.txt", old_string: "two", new_string: "2" }, ctx))).toBe(
      `old_string occurs 2 times in ${path.join(dir, "e.txt")}: "two". Give more surrounding text to make it unique, or set replace_all.`,
    );
    expect(text(await run(edit, { file_path: "e.txt", old_string: "four", new_string: "4" }, ctx))).toBe(
      `old_string was not found in ${path.join(dir, "e.txt")}: "four". Read the file again and copy the text exactly.`,
    );
    expect(
      text(
        await run(edit, { file_path: "e.txt", old_string: "two", new_string: "$&2", replace_all: true }, ctx),
      ),
    ).toBe(`Edited ${path.join(dir, "e.txt")}: replaced 2 occurrences.`);
    expect(readFileSync(path.join(dir, "e.txt"), "utf8")).toBe("1 $&2 $&2 three\n");
    expect((await run(edit, { file_path: "e.txt", old_string: "x", new_string: "x" }, ctx)).isError).toBe(
      true,
    );
  });

  it("refuses to edit a file that is not UTF-8, leaving its bytes alone", async () => {
    const latin = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x4d, 0x0a]);
    writeFiles(dir, { "latin.txt": latin });
    await run(read, { file_path: "latin.txt" }, ctx);
    const r = await run(edit, { file_path: "latin.txt", old_string: "M", new_string: "X" }, ctx);
    expect(r.isError).toBe(true);
    expect(readFileSync(path.join(dir, "latin.txt"))).toEqual(latin);
  });

  it("matches LF text in a CRLF file and keeps its line ends", async () => {
    writeFiles(dir, { "w.txt": "a\r\nb\r\nc\r\n" });
    await run(read, { file_path: "w.txt" }, ctx);
    const r = await run(edit, { file_path: "w.txt", old_string: "a\nb", new_string: "A\nB" }, ctx);
    expect(r.isError).toBe(false);
    expect(readFileSync(path.join(dir, "w.txt"), "utf8")).toBe("A\r\nB\r\nc\r\n");
  });
});
