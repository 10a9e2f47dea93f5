import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTurnCheckpoints, readCheckpoints } from "../../src/loop/checkpoints.js";
import { rewindFiles, type SkipReason } from "../../src/loop/rewind-files.js";
import { tempDir } from "../support/fixtures.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const store = () => path.join(dir, ".agentmd/sessions/s.checkpoints");
const at = (f: string) => path.join(dir, "project", f);
const read = (f: string) => (existsSync(at(f)) ? readFileSync(at(f), "utf8") : null);

/** One turn of edits, as the executor makes them: kept before, noted after. */
function turn(runId: string, edits: Record<string, string | null>): void {
  const t = openTurnCheckpoints(store(), (m) => {
    throw new Error(m);
  });
  t.begin(runId);
  for (const [f, content] of Object.entries(edits)) {
    t.before(at(f));
    if (content === null) rmSync(at(f), { force: true });
    else {
      mkdirSync(path.dirname(at(f)), { recursive: true });
      writeFileSync(at(f), content);
    }
    t.after(at(f));
  }
}

const rewind = (runIds: readonly string[], o: { force?: boolean; dryRun?: boolean; deny?: string } = {}) =>
  rewindFiles(store(), readCheckpoints(store()), new Set(runIds), {
    ...o,
    mayWrite: (file) => (o.deny !== undefined && file === at(o.deny) ? "denied by a rule" : undefined),
  });

interface Case {
  readonly name: string;
  /** What happens after the agent's turn and before the rewind. */
  readonly meanwhile?: () => void;
  readonly options?: { force?: boolean; dryRun?: boolean; deny?: string };
  readonly restored: readonly string[];
  readonly removed: readonly string[];
  readonly skipped: readonly (readonly [string, SkipReason])[];
  /** The files afterwards. */
  readonly after: Readonly<Record<string, string | null>>;
}

const CASES: readonly Case[] = [
  {
    name: "an edited file is put back and a created one removed",
    restored: ["a.txt"],
    removed: ["new/b.txt"],
    skipped: [],
    after: { "a.txt": "one", "new/b.txt": null },
  },
  {
    name: "a file changed outside agentmd is a conflict, left as it is",
    meanwhile: () => writeFileSync(at("a.txt"), "by hand"),
    restored: [],
    removed: ["new/b.txt"],
    skipped: [["a.txt", "conflict"]],
    after: { "a.txt": "by hand", "new/b.txt": null },
  },
  {
    name: "--force puts a conflicting file back",
    meanwhile: () => writeFileSync(at("a.txt"), "by hand"),
    options: { force: true },
    restored: ["a.txt"],
    removed: ["new/b.txt"],
    skipped: [],
    after: { "a.txt": "one" },
  },
  {
    name: "a file the session may not write now is skipped",
    options: { deny: "a.txt" },
    restored: [],
    removed: ["new/b.txt"],
    skipped: [["a.txt", "denied"]],
    after: { "a.txt": "two" },
  },
  {
    name: "a file that has become a symbolic link is not written through (even forced)",
    meanwhile: () => {
      rmSync(at("a.txt"));
      symlinkSync(path.join(dir, "outside/target.txt"), at("a.txt"));
    },
    options: { force: true },
    restored: [],
    removed: ["new/b.txt"],
    skipped: [["a.txt", "link"]],
    after: {},
  },
  {
    name: "a folder that has become a symbolic link out of the project is not written through",
    meanwhile: () => {
      rmSync(at("new"), { recursive: true });
      writeFileSync(path.join(dir, "outside/b.txt"), "two");
      symlinkSync(path.join(dir, "outside"), at("new"));
    },
    options: { force: true },
    restored: ["a.txt"],
    removed: [],
    skipped: [["new/b.txt", "link"]],
    after: { "a.txt": "one" },
  },
  {
    name: "a dry run says what it would do and changes nothing",
    options: { dryRun: true },
    restored: ["a.txt"],
    removed: ["new/b.txt"],
    skipped: [],
    after: { "a.txt": "two", "new/b.txt": "two" },
  },
];

describe("rewindFiles", () => {
  it.each(CASES)("$name", (c) => {
    mkdirSync(path.join(dir, "outside"), { recursive: true });
    writeFileSync(path.join(dir, "outside/target.txt"), "outside stays");
    mkdirSync(at("."), { recursive: true });
    writeFileSync(at("a.txt"), "one");
    turn("run-1", { "a.txt": "two", "new/b.txt": "two" });
    c.meanwhile?.();
    const r = rewind(["run-1"], c.options);
    expect(r.restored).toEqual(c.restored.map(at));
    expect(r.removed).toEqual(c.removed.map(at));
    expect(r.skipped.map((s) => [s.file, s.reason])).toEqual(c.skipped.map(([f, why]) => [at(f), why]));
    for (const [f, content] of Object.entries(c.after)) expect(read(f), f).toBe(content);
    // Nothing outside the project was ever written.
    expect(readFileSync(path.join(dir, "outside/target.txt"), "utf8")).toBe("outside stays");
  });

  it("puts every file back as it was just before the turn chosen, whatever the turns did after (property)", () => {
    const names = ["a", "b", "c"] as const;
    const edit = fc.dictionary(
      fc.constantFrom(...names),
      fc.option(fc.string({ maxLength: 5 }), { nil: null }),
    );
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 5 }), fc.nat(), (turns, pick) => {
        rmSync(path.join(dir, "project"), { recursive: true, force: true });
        rmSync(store(), { recursive: true, force: true });
        mkdirSync(at("."), { recursive: true });
        const states: Record<string, string | null>[] = [];
        const snapshot = () => Object.fromEntries(names.map((n) => [n, read(n)]));
        turns.forEach((edits, i) => {
          states.push(snapshot());
          turn(`run-${i}`, edits);
        });
        const k = pick % turns.length;
        const r = rewind(turns.map((_, i) => `run-${i}`).slice(k));
        expect(r.skipped).toEqual([]);
        expect(snapshot()).toEqual(states[k]);
      }),
      { numRuns: 60 },
    );
  });
});
