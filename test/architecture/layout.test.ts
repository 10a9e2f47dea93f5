import path from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, floorOf, readSources, upwardArrows } from "../../scripts/architecture.js";

// The rules of docs/architecture.md, measured from src/ as it is.
const src = path.resolve(import.meta.dirname, "../../src");
const sources = readSources(src);
const rel = (f: string) => path.relative(src, f);

describe("the layout of src/", () => {
  it("knows the floor of every file", () => {
    expect(sources.filter((s) => floorOf(src, s.file) < 0).map((s) => rel(s.file))).toEqual([]);
  });

  it("has no import circle", () => {
    expect(cycles(sources).map((c) => c.map(rel).join(" ⇄ "))).toEqual([]);
  });

  it("has no arrow that points up a floor", () => {
    expect(upwardArrows(src, sources)).toEqual([]);
  });

  it("has no file over 400 lines", () => {
    expect(sources.filter((s) => s.lines > 400).map((s) => `${rel(s.file)} ${s.lines}`)).toEqual([]);
  });

  it("has no function over 80 lines in invocation/, loop/ and permissions/", () => {
    const long = sources
      .filter((s) => /^(invocation|loop|permissions)\//.test(rel(s.file)))
      .flatMap((s) =>
        s.functions.filter((f) => f.lines > 80).map((f) => `${rel(s.file)}:${f.line} ${f.name}`),
      );
    expect(long).toEqual([]);
  });

  it("finds a circle and an upward arrow when there is one", () => {
    const a = path.join(src, "loop", "a.ts");
    const b = path.join(src, "loop", "b.ts");
    const d = path.join(src, "definitions", "d.ts");
    const fake = [
      { file: a, lines: 1, imports: [b], functions: [] },
      { file: b, lines: 1, imports: [a], functions: [] },
      { file: d, lines: 1, imports: [a], functions: [] },
    ];
    expect(cycles(fake)).toEqual([[a, b]]);
    expect(upwardArrows(src, fake)).toEqual(["definitions/d.ts -> loop/a.ts"]);
  });
});
