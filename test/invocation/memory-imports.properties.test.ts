import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMemory } from "../../src/invocation/memory.js";
import { isInside } from "../../src/shared/is-inside.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * Memory hands the model what its imports name: a file outside the working folders reaches the
 * prompt only when the run could read it unasked (`mayImport`), or when the user's own
 * `~/.claude/CLAUDE.md` imports it (directly or through its imports). Real files, random import
 * graphs.
 */
let dir: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir, cleanup } = tempDir());
});
afterAll(() => cleanup());

const NAMES = [
  "proj/CLAUDE.md",
  "proj/a.md",
  "proj/b.md",
  "home/x.md",
  "home/y.md",
  "home/.claude/CLAUDE.md",
];

describe("memory imports outside the working folders", () => {
  it("property: a given file is inside the project, readable unasked, or imported by the user's chain", () => {
    const edges = fc.array(fc.tuple(fc.nat(NAMES.length - 1), fc.nat(NAMES.length - 1)), { maxLength: 12 });
    const allowed = fc.subarray(["home/x.md", "home/y.md"]);
    fc.assert(
      fc.property(edges, allowed, fc.boolean(), (graph, unasked, withUser) => {
        const abs = (n: string) => path.join(dir, n);
        const importsOf = (n: string) =>
          graph.filter(([from]) => NAMES[from] === n).map(([, to]) => NAMES[to] as string);
        const files = NAMES.filter((n) => withUser || n !== "home/.claude/CLAUDE.md");
        writeFiles(
          dir,
          Object.fromEntries(
            NAMES.map((n) => [
              n,
              `${n}\n${importsOf(n)
                .map((t) => `@${abs(t)}`)
                .join("\n")}\n`,
            ]),
          ),
        );
        const user = path.join(dir, "home/.claude");
        const memory = loadMemory({
          projectDir: abs("proj"),
          cwd: abs("proj"),
          home: abs("home"),
          ...(withUser ? { userDir: user } : { userDir: path.join(dir, "nobody") }),
          mayRead: () => true,
          mayImport: (f) => isInside(f, abs("proj")) || unasked.some((n) => abs(n) === f),
          now: new Date(0),
        });
        const usersChain = new Set<string>();
        const walk = (n: string) => {
          if (usersChain.has(n)) return;
          usersChain.add(n);
          for (const t of importsOf(n)) walk(t);
        };
        if (withUser) walk("home/.claude/CLAUDE.md");
        for (const given of memory.files) {
          const n = path.relative(dir, given);
          expect(files).toContain(n);
          expect(n.startsWith("proj/") || unasked.includes(n) || usersChain.has(n)).toBe(true);
        }
        for (const said of memory.skipped) expect(said).toMatch(/outside the working folders|levels deep/);
      }),
      { numRuns: 150 },
    );
  });
});
