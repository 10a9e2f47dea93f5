import { utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findRipgrep } from "../../../src/tools/builtin/ripgrep.js";
import { rustToJs } from "../../../src/tools/builtin/rust-regex.js";
import { createGlobTool, createGrepTool } from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { type LoggedContext, run, text, toolContext, writeFiles } from "../../support/tools.js";

let dir: string;
let cleanup: () => void;
let ctx: LoggedContext;
const glob = createGlobTool();
const RG = findRipgrep(process.env.PATH);
if (!RG && process.env.CI)
  throw new Error("rg is not on PATH: in CI this is a failure (.ci/run installs ripgrep)");
if (!RG) console.warn("\n!!! Grep's ripgrep tests skipped: rg is not on PATH (apt-get install ripgrep).\n");
/** Grep with each engine: ripgrep where it is installed, and the built-in one. */
const ENGINES = [...(RG ? [["ripgrep", RG] as const] : []), ["built-in", null] as const];

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

  it("leaves out what .gitignore excludes", async () => {
    writeFiles(dir, { ".gitignore": "dist/\n*.log\n", "dist/out.ts": "x\n", "src/run.log": "x\n" });
    const out = text(await run(glob, { pattern: "**/*" }, ctx));
    expect(out).not.toMatch(/dist|run\.log/);
    expect(out).toContain("src/a.ts");
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

describe.each(ENGINES)("Grep (%s)", (engine, rg) => {
  const grep = createGrepTool({ rg });

  it("says in its description which engine searches", () => {
    expect(grep.description).toContain(
      engine === "ripgrep" ? "Runs ripgrep (rg)." : "ripgrep is not installed",
    );
  });

  it("reads ripgrep's syntax: (?i), named groups, POSIX classes", async () => {
    expect(text(await run(grep, { pattern: "(?i)todo three", path: "src" }, ctx))).toBe("src/deep/c.ts");
    expect(text(await run(grep, { pattern: "(?P<w>line) f[[:alpha:]]+e", path: "src" }, ctx))).toBe(
      "src/deep/c.ts",
    );
  });

  it("leaves out what .gitignore excludes, in a repository or not, and searches an ignored folder named as path", async () => {
    writeFiles(dir, {
      ".gitignore": "dist/\n*.log\n",
      "dist/out.ts": "TODO built\n",
      "run.log": "TODO logged\n",
      "src/.gitignore": "gen.ts\n",
      "src/gen.ts": "TODO generated\n",
    });
    const all = text(await run(grep, { pattern: "TODO" }, ctx));
    expect(all).not.toMatch(/dist|run\.log|gen\.ts/);
    expect(all).toContain("src/a.ts");
    expect(text(await run(grep, { pattern: "TODO", path: "dist" }, ctx))).toBe("dist/out.ts");
  });

  it("says a bad pattern once, with no doubled words", async () => {
    const said = text(await run(grep, { pattern: "a(b" }, ctx));
    expect(said).toMatch(/^Invalid regular expression: /);
    expect(said.match(/Invalid regular expression/g)).toHaveLength(1);
  });

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

  it("stops a pathological regular expression after its time limit (built-in), and on abort", async () => {
    writeFiles(dir, { "redos.txt": `${"a".repeat(40)}!\n` });
    if (rg === null) {
      const quick = createGrepTool({ timeoutMs: 300, rg: null });
      const r = await run(quick, { pattern: "^(a+)+$", path: "redos.txt" }, ctx);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^The search took more than 0\.3 s and was stopped/);
    }
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

describe("rustToJs (the built-in engine's reading of ripgrep's syntax)", () => {
  it.each([
    ["(?i)abc", "ABC", true],
    ["(?is)a.c", "A\nC", true],
    ["(?P<x>a)(?P=x)", "aa", true],
    ["\\Afoo\\z", "foo", true],
    ["\\Afoo\\z", "foox", false],
    ["[[:digit:]]+", "x12", true],
    ["[[:^digit:]]", "12", false],
  ])("%s on %j: %s", (pattern, subject, expected) => {
    const re = rustToJs(pattern, false);
    expect(re).toBeInstanceOf(RegExp);
    expect((re as RegExp).test(subject)).toBe(expected);
  });

  it("says what it cannot translate rather than guessing", () => {
    expect(rustToJs("a(?i)b", false)).toEqual({ error: expect.stringContaining("need ripgrep") });
    expect(rustToJs("(?U)a+", false)).toEqual({ error: expect.stringContaining("needs ripgrep") });
    expect(rustToJs("a(b", false)).toEqual({
      error: expect.not.stringMatching(/^Invalid regular expression/),
    });
  });
});
