import { utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool, createGrepTool } from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { type LoggedContext, run, text, toolContext, writeFiles } from "../../support/tools.js";

let dir: string;
let cleanup: () => void;
let ctx: LoggedContext;
const glob = createGlobTool();
const grep = createGrepTool();

function age(rel: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path.join(dir, rel), t, t);
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  ctx = toolContext(dir);
  writeFiles(dir, {
    "src/a.ts": "export const a = 1;\n// TODO: fix a\n",
    "src/b.ts": "export const b = 2;\nconst todo = 'later';\n",
    "src/deep/c.ts": "line one\nline two\nTODO three\nline four\nline five\n",
    "docs/readme.md": "# Readme\nTODO docs\n",
    ".hidden/x.ts": "TODO hidden\n",
    ".git/config.ts": "TODO git\n",
    "node_modules/m/index.ts": "TODO module\n",
    "bin.dat": Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0, 1]),
  });
  age("src/a.ts", 300);
  age("src/b.ts", 100);
  age("src/deep/c.ts", 200);
});
afterEach(() => cleanup());

describe("Glob", () => {
  it("lists matches newest first, skipping .git, node_modules and hidden files", async () => {
    const r = await run(glob, { pattern: "**/*.ts" }, ctx);
    expect(text(r).split("\n")).toEqual(
      ["src/b.ts", "src/deep/c.ts", "src/a.ts"].map((f) => path.join(dir, f)),
    );
  });

  it("matches hidden files when the pattern names them, and searches below path", async () => {
    expect(text(await run(glob, { pattern: ".hidden/*.ts" }, ctx))).toBe(path.join(dir, ".hidden/x.ts"));
    expect(text(await run(glob, { pattern: "*.ts", path: "src/deep" }, ctx))).toBe(
      path.join(dir, "src/deep/c.ts"),
    );
    expect(text(await run(glob, { pattern: "*.rs" }, ctx))).toBe(`No files match '*.rs' in ${dir}.`);
  });

  it("caps the list with a note", async () => {
    writeFiles(dir, Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`many/f${i}.txt`, "x"])));
    const out = text(await run(glob, { pattern: "many/*.txt" }, ctx)).split("\n");
    expect(out).toHaveLength(101);
    expect(out[100]).toBe("(showing the 100 newest of 105 matches; narrow the pattern or the path)");
  });

  it("refuses patterns that climb out of path or are absolute", async () => {
    expect(await run(glob, { pattern: "../**/*", path: "src" }, ctx)).toEqual({
      content: "pattern '../**/*' climbs out of 'path' with '..'; put the folder in 'path' instead.",
      isError: true,
    });
    expect((await run(glob, { pattern: "src/../../x" }, ctx)).isError).toBe(true);
    expect((await run(glob, { pattern: "/etc/*" }, ctx)).isError).toBe(true);
    expect((await run(glob, { pattern: "*", path: "nope" }, ctx)).isError).toBe(true);
  });
});

describe("Grep", () => {
  it("lists files with matches, newest first, skipping .git, node_modules and binaries", async () => {
    const r = await run(grep, { pattern: "TODO" }, ctx);
    const files = text(r).split("\n");
    expect(files.slice(2)).toEqual(["src/deep/c.ts", "src/a.ts"]);
    expect(files.slice(0, 2).sort()).toEqual([".hidden/x.ts", "docs/readme.md"]);
    expect(text(r)).not.toMatch(/node_modules|\.git\/|bin\.dat/);
    expect(text(r).split("\n").sort()).toEqual([
      ".hidden/x.ts",
      "docs/readme.md",
      "src/a.ts",
      "src/deep/c.ts",
    ]);
  });

  it("shows matching lines with numbers and context", async () => {
    expect(text(await run(grep, { pattern: "TODO", path: "src/deep", output_mode: "content" }, ctx))).toBe(
      "src/deep/c.ts:3:TODO three",
    );
    expect(
      text(await run(grep, { pattern: "TODO", path: "src/deep/c.ts", output_mode: "content", "-C": 1 }, ctx)),
    ).toBe("src/deep/c.ts-2-line two\nsrc/deep/c.ts:3:TODO three\nsrc/deep/c.ts-4-line four");
    expect(
      text(await run(grep, { pattern: "line", path: "src/deep", output_mode: "content", "-n": false }, ctx)),
    ).toBe(
      "src/deep/c.ts:line one\nsrc/deep/c.ts:line two\nsrc/deep/c.ts:line four\nsrc/deep/c.ts:line five",
    );
  });

  it("counts, ignores case, filters by glob and limits output", async () => {
    expect(
      text(await run(grep, { pattern: "todo", "-i": true, path: "src", output_mode: "count" }, ctx)),
    ).toBe("src/a.ts:1\nsrc/b.ts:1\nsrc/deep/c.ts:1");
    expect(text(await run(grep, { pattern: "TODO", glob: "*.md" }, ctx))).toBe("docs/readme.md");
    expect(
      text(await run(grep, { pattern: "TODO", glob: "src/**/*.ts" }, ctx))
        .split("\n")
        .sort(),
    ).toEqual(["src/a.ts", "src/deep/c.ts"]);
    expect(
      text(
        await run(grep, { pattern: "line", path: "src/deep", output_mode: "content", head_limit: 2 }, ctx),
      ),
    ).toBe("src/deep/c.ts:1:line one\nsrc/deep/c.ts:2:line two\n(first 2 of 4)");
  });

  it("stops a pathological regular expression after its time limit, and on abort", async () => {
    writeFiles(dir, { "redos.txt": `${"a".repeat(40)}!\n` });
    const quick = createGrepTool({ timeoutMs: 300 });
    const r = await run(quick, { pattern: "^(a+)+$", path: "redos.txt" }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^The search took more than 0\.3 s and was stopped/);
    const ac = new AbortController();
    const pending = run(grep, { pattern: "^(a+)+$", path: "redos.txt" }, toolContext(dir, ac.signal));
    ac.abort();
    expect(await pending).toEqual({ content: "Interrupted.", isError: true });
  });

  it("reports bad regular expressions, climbing globs, and no matches", async () => {
    expect((await run(grep, { pattern: "(" }, ctx)).isError).toBe(true);
    expect(text(await run(grep, { pattern: "(" }, ctx))).toMatch(/^Invalid regular expression: /);
    expect((await run(grep, { pattern: "x", glob: "../*" }, ctx)).isError).toBe(true);
    expect(await run(grep, { pattern: "zzz", path: "src" }, ctx)).toEqual({
      content: `No matches for /zzz/ in ${path.join(dir, "src")}.`,
      isError: false,
    });
  });
});
