import { readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import type { CodeItem } from "../../src/trust/code-item.js";
import { projectInventory as repositoryCode } from "../../src/trust/inventory/inventory.js";
import { codeChanges, trustState } from "../../src/trust/trust-state.js";
import { readTrust, recordTrust, revokeTrust, trustFile } from "../../src/trust/trust-store.js";
import { test } from "../support/fixture.js";

const it = test;
const HOOKED = {
  ".claude/settings.json": JSON.stringify({
    hooks: { PreToolUse: [{ matcher: "Bash", command: "exit 0" }] },
  }),
};

describe("the trust file", () => {
  it("records a folder under its real path, reads it back, and revokes it", ({ project, dir }) => {
    const home = path.join(dir, "home");
    project(HOOKED);
    const link = path.join(dir, "..", `${path.basename(dir)}-link`);
    symlinkSync(dir, link);
    try {
      expect(trustState(link, home).kind).toBe("untrusted");
      recordTrust(home, repositoryCode(link, home));
      expect(Object.keys(readTrust(home).folders)).toEqual([dir]);
      expect(trustState(dir, home).kind).toBe("trusted");
      expect(trustState(link, home).kind).toBe("trusted");
      expect(revokeTrust(home, dir)).toBe(true);
      expect(revokeTrust(home, dir)).toBe(false);
      expect(trustState(dir, home).kind).toBe("untrusted");
    } finally {
      // The link lies outside the fixture's folder.
      rmSync(link);
    }
  });

  it("leaves no temporary file beside it, and keeps other folders' entries", ({ project, dir }) => {
    const home = path.join(dir, "home");
    const a = path.join(dir, "a");
    const b = path.join(dir, "b");
    project({ ...prefixed("a", HOOKED), ...prefixed("b", HOOKED) });
    recordTrust(home, repositoryCode(a, home));
    recordTrust(home, repositoryCode(b, home));
    expect(Object.keys(readTrust(home).folders).sort()).toEqual([a, b]);
    expect(readdirSync(path.dirname(trustFile(home)))).toEqual(["trust.json"]);
  });

  it.for<[string, string]>([
    ["not JSON", "{ nope"],
    ["not an object", "[1, 2]"],
    ["folders of the wrong shape", JSON.stringify({ version: 1, folders: [] })],
  ])("a file that is %s trusts nothing", ([, text], { project, dir }) => {
    const home = path.join(dir, "home");
    project({ ...HOOKED, "home/.agentmd/trust.json": text });
    expect(readTrust(home).folders).toEqual({});
    expect(trustState(dir, home).kind).toBe("untrusted");
  });

  it("an entry whose digest was edited by hand is not trusted", ({ project, dir }) => {
    const home = path.join(dir, "home");
    project(HOOKED);
    recordTrust(home, repositoryCode(dir, home));
    const file = readTrust(home);
    const entry = file.folders[dir];
    writeFileSync(
      trustFile(home),
      JSON.stringify({ version: 1, folders: { [dir]: { ...entry, digest: "0".repeat(64) } } }),
    );
    const state = trustState(dir, home);
    expect(state.kind).toBe("untrusted");
    expect(state.kind === "untrusted" && state.changes).toEqual({ added: [], removed: [], changed: [] });
  });
});

describe("codeChanges: item by item on their ids", () => {
  const item = (id: string, hash: string): CodeItem => ({ kind: "hook", id, text: id, file: "f", hash });
  const cases: [string, CodeItem[], CodeItem[], { added: string[]; removed: string[]; changed: string[] }][] =
    [
      ["nothing", [item("a", "1")], [item("a", "1")], { added: [], removed: [], changed: [] }],
      ["added", [], [item("a", "1")], { added: ["a"], removed: [], changed: [] }],
      ["removed", [item("a", "1")], [], { added: [], removed: ["a"], changed: [] }],
      ["changed", [item("a", "1")], [item("a", "2")], { added: [], removed: [], changed: ["a"] }],
      [
        "all three",
        [item("a", "1"), item("b", "1")],
        [item("b", "2"), item("c", "1")],
        { added: ["c"], removed: ["a"], changed: ["b"] },
      ],
    ];
  it.for(cases)("%s", ([, before, now, expected]) => {
    const c = codeChanges(before, now);
    expect({
      added: c.added.map((i) => i.id),
      removed: c.removed.map((i) => i.id),
      changed: c.changed.map((i) => i.id),
    }).toEqual(expected);
  });
});

function prefixed(folder: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [`${folder}/${k}`, v]));
}
