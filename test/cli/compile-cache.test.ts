import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import nodeModule from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * Where the built CLI keeps Node's compile cache (Node 22.1+): in the user's cache folder, never in
 * the package's folder or one other users share, and a folder it cannot make costs nothing but speed.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const hasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
const PROJECT = {
  "agent.md": "---\nname: main\ndescription: Answers.\nallowed-tools: Read\n---\nYou answer.\n",
};

function checkIn(env: (dir: string) => Record<string, string>): {
  dir: string;
  code: number;
  stderr: string;
} {
  const t = tempDir();
  cleanups.push(t.cleanup);
  writeFiles(t.dir, PROJECT);
  const r = runBin(["check"], { cwd: t.dir, env: env(t.dir) });
  return { dir: t.dir, code: r.code, stderr: r.stderr };
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }) : []);

describe.runIf(hasCompileCache)("the compile cache, on a Node that has one", () => {
  it("is kept under the home folder's .cache", () => {
    const r = checkIn((dir) => ({ HOME: dir }));
    expect(r.code).toBe(0);
    expect(cacheFiles(path.join(r.dir, ".cache/agentmd/compile-cache")).length).toBeGreaterThan(0);
  });

  it("is kept under XDG_CACHE_HOME when that is set", () => {
    const r = checkIn((dir) => ({ HOME: dir, XDG_CACHE_HOME: path.join(dir, "xdg") }));
    expect(r.code).toBe(0);
    expect(cacheFiles(path.join(r.dir, "xdg/agentmd/compile-cache")).length).toBeGreaterThan(0);
    expect(existsSync(path.join(r.dir, ".cache"))).toBe(false);
  });
});

describe("the compile cache", () => {
  it("a cache folder that cannot be made leaves the cache off, and the command works as ever", () => {
    const r = checkIn((dir) => {
      writeFileSync(path.join(dir, ".cache"), "a file where the folder would be\n");
      return { HOME: dir };
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

/**
 * Node 20 has no compile cache for ES modules: the launcher compiles `check`'s own file
 * (dist/bundle/check.cjs) with V8's code cache, kept beside where the compile cache would be.
 * AGENTMD_DEBUG_CODE_CACHE=1 says what it did: none (no cache yet), stale (a cache of another file,
 * Node or option), refused (V8 would not take it), used; written when it kept one.
 */
describe.runIf(!hasCompileCache)("check's code cache, on a Node without a compile cache", () => {
  const DEBUG = { AGENTMD_DEBUG_CODE_CACHE: "1" };
  const said = (stderr: string) => [...stderr.matchAll(/^agentmd: code cache: (\w+)$/gm)].map((m) => m[1]);
  const cacheDir = (home: string) => path.join(home, ".cache/agentmd/code-cache");

  /** A project and a home folder; check run there with the built CLI (or another copy of it). */
  function setUp() {
    const t = tempDir();
    cleanups.push(t.cleanup);
    writeFiles(t.dir, PROJECT);
    const check = (env: Record<string, string> = {}, entry = path.join(REPO_ROOT, "bin/agentmd.js")) => {
      const r = spawnSync(process.execPath, [entry, "check"], {
        cwd: t.dir,
        env: { PATH: process.env.PATH ?? "", HOME: t.dir, ...DEBUG, ...env },
        encoding: "utf8",
        timeout: 30_000,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    return { dir: t.dir, check };
  }
  const onlyFile = (dir: string) => {
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    return path.join(dir, files[0] as string);
  };

  it("the first check keeps its compiled code under the home folder's .cache; the next uses it", () => {
    const { dir, check } = setUp();
    const first = check();
    expect(first.code).toBe(0);
    expect(said(first.stderr)).toEqual(["none", "written"]);
    expect(first.stdout).toMatch(/^checked 1 file: 1 main agent; 0 errors/);
    const blob = onlyFile(cacheDir(dir));
    const written = statSync(blob).mtimeMs;
    const second = check();
    expect(said(second.stderr)).toEqual(["used"]);
    expect(second.stdout).toBe(first.stdout);
    expect(second.code).toBe(0);
    expect(statSync(blob).mtimeMs).toBe(written);
  });

  it("is kept under XDG_CACHE_HOME when that is set", () => {
    const { dir, check } = setUp();
    const xdg = path.join(dir, "xdg");
    expect(said(check({ XDG_CACHE_HOME: xdg }).stderr)).toEqual(["none", "written"]);
    expect(said(check({ XDG_CACHE_HOME: xdg }).stderr)).toEqual(["used"]);
    expect(readdirSync(path.join(xdg, "agentmd/code-cache"))).toHaveLength(1);
    expect(existsSync(path.join(dir, ".cache"))).toBe(false);
  });

  it.each([
    [
      "its bytes changed",
      (b: Buffer, from: number) => b.map((x, i) => (i > from + (b.length - from) / 2 ? x ^ 0x5a : x)),
    ],
    ["cut short", (b: Buffer, from: number) => b.subarray(0, from + Math.floor((b.length - from) / 3))],
  ])("a cache file %s is refused and replaced, and check works as ever", (_, damage) => {
    const { dir, check } = setUp();
    const first = check();
    const blob = onlyFile(cacheDir(dir));
    const content = readFileSync(blob);
    const header = content.indexOf("\n", content.indexOf("\n") + 1) + 1;
    writeFileSync(blob, damage(content, header));
    const damaged = check();
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toBe(first.stdout);
    expect(said(damaged.stderr)).toEqual(["refused", "written"]);
    expect(said(check().stderr)).toEqual(["used"]);
  });

  it("a cache folder that cannot be made leaves the cache off without a word", () => {
    const { dir, check } = setUp();
    writeFileSync(path.join(dir, ".cache"), "a file where the folder would be\n");
    const r = check({ AGENTMD_DEBUG_CODE_CACHE: "" });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(said(check().stderr)).toEqual(["none"]);
  });

  it("a rebuilt check.cjs, or a Node started with other options, does not use the old file's cache", () => {
    const { dir, check } = setUp();
    // A copy of the built package, to rebuild its check.cjs in place.
    const pkg = path.join(dir, "pkg");
    cpSync(path.join(REPO_ROOT, "bin"), path.join(pkg, "bin"), { recursive: true });
    cpSync(path.join(REPO_ROOT, "dist/bundle"), path.join(pkg, "dist/bundle"), { recursive: true });
    cpSync(path.join(REPO_ROOT, "package.json"), path.join(pkg, "package.json"));
    const entry = path.join(pkg, "bin/agentmd.js");
    const built = path.join(pkg, "dist/bundle/check.cjs");
    const first = check({}, entry);
    expect(said(first.stderr)).toEqual(["none", "written"]);
    expect(said(check({}, entry).stderr)).toEqual(["used"]);
    // Rebuilt with the same length (V8's own check of the source): only the time says it changed.
    writeFileSync(built, readFileSync(built, "utf8").replace("`checked ${n}", "`CHECKED ${n}"));
    const later = new Date(statSync(built).mtimeMs + 5000);
    utimesSync(built, later, later);
    const rebuilt = check({}, entry);
    expect(said(rebuilt.stderr)).toEqual(["stale", "written"]);
    expect(rebuilt.stdout).toMatch(/^CHECKED 1 file/);
    expect(said(check({}, entry).stderr)).toEqual(["used"]);
    expect(said(check({ NODE_OPTIONS: "--max-old-space-size=200" }, entry).stderr)).toEqual([
      "stale",
      "written",
    ]);
  });
});
