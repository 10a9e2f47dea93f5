import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findProjectRoot } from "../../src/definitions/discover.js";

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A tree from paths: a trailing `/` makes a folder, anything else an empty file. */
function tree(paths: readonly string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), "agentmd-root-"));
  made.push(root);
  for (const p of paths) {
    const abs = path.join(root, p);
    if (p.endsWith("/")) mkdirSync(abs, { recursive: true });
    else {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, "");
    }
  }
  return root;
}

// [files of the tree, working folder, expected root] — "" is the tree's own folder.
const cases: readonly (readonly [readonly string[], string, string])[] = [
  [["agent.md", "pkg/"], "pkg", ""],
  [["agent.md", "pkg/.claude/settings.json"], "pkg", ""],
  [["agent.md", "pkg/agent.md"], "pkg", ""],
  [["agent.md", "a/b/.claude/", "a/b/c/"], "a/b/c", ""],
  [["pkg/.claude/settings.json"], "pkg", "pkg"],
  [[".git/", "pkg/.claude/"], "pkg", "pkg"],
  [[".git/", "pkg/src/"], "pkg/src", ""],
  [["pkg/agent.md", "pkg/sub/.claude/"], "pkg/sub", "pkg"],
  [["other/agent.md", "pkg/.claude/"], "pkg", "pkg"],
];

describe("the project root", () => {
  it.each(cases)("%j from %s is %j", (files, cwd, expected) => {
    const root = tree(files);
    expect(findProjectRoot(path.join(root, cwd))).toBe(path.join(root, expected));
  });

  it("never climbs to the home folder's agent.md or above it", () => {
    const root = tree(["agent.md", "home/agent.md", "home/proj/.claude/"]);
    const home = path.join(root, "home");
    expect(findProjectRoot(path.join(home, "proj"), home)).toBe(path.join(home, "proj"));
  });

  it("takes the home folder itself when the run starts there", () => {
    const root = tree(["home/agent.md"]);
    const home = path.join(root, "home");
    expect(findProjectRoot(home, home)).toBe(home);
  });
});
