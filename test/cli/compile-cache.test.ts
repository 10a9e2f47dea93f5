import { existsSync, readdirSync, writeFileSync } from "node:fs";
import nodeModule from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";
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
