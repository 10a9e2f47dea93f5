import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resourceServers } from "../../src/mcp/mcp-resources.js";
import { rootsOf } from "../../src/mcp/server-requests.js";
import { intersect } from "../../src/permissions/index.js";
import { list } from "../support/permissions.js";

/** Which servers' resources a list may read: the ones it reaches whole, and never more at a hop. */
const SERVERS = [{ name: "a" }, { name: "ab" }, { name: "b" }];
const readable = (allow: string | null, deny?: string) =>
  resourceServers(SERVERS, list(allow, deny)).map((s) => s.name);

describe("resourceServers, one line per case", () => {
  it.each([
    ["mcp__a", undefined, ["a"]],
    ["mcp__a__*", undefined, ["a"]],
    ["*", undefined, ["a", "ab", "b"]],
    [null, undefined, ["a", "ab", "b"]],
    ["mcp__a__x", undefined, []],
    ["mcp__a__x, mcp__a__y", undefined, []],
    ["Read, ReadMcpResourceTool", undefined, []],
    ["mcp__a, mcp__b", "mcp__b", ["a"]],
    ["*", "mcp__a__*", ["ab", "b"]],
    ["mcp__a", "mcp__a__x", ["a"]],
    ["mcp__ab", undefined, ["ab"]],
  ] as const)("allow %s, deny %s → %j", (allow, deny, expected) => {
    expect(readable(allow, deny)).toEqual(expected);
  });
});

const ENTRIES = [
  "*",
  "Read",
  "mcp__a",
  "mcp__a__*",
  "mcp__a__x",
  "mcp__ab",
  "mcp__ab__*",
  "mcp__b",
  "mcp__b__y",
  "ReadMcpResourceTool",
  "ListMcpResourcesTool",
];
const listArb = fc
  .record({
    allow: fc.option(fc.subarray(ENTRIES, { maxLength: 4 }), { nil: null }),
    deny: fc.subarray(ENTRIES, { maxLength: 2 }),
  })
  .map(({ allow, deny }) => list(allow === null ? null : allow.join(", "), deny.join(", ") || undefined));

describe("a hop never reads a server its caller could not", () => {
  it("the servers of caller ∩ callee are among the caller's and the callee's", () => {
    fc.assert(
      fc.property(listArb, listArb, (caller, callee) => {
        const hop = resourceServers(SERVERS, intersect(caller, callee)).map((s) => s.name);
        const mine = resourceServers(SERVERS, caller).map((s) => s.name);
        const theirs = resourceServers(SERVERS, callee).map((s) => s.name);
        for (const s of hop) {
          expect(mine).toContain(s);
          expect(theirs).toContain(s);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("a chain of hops only narrows", () => {
    fc.assert(
      fc.property(fc.array(listArb, { minLength: 1, maxLength: 4 }), (lists) => {
        let effective = lists[0] as ReturnType<typeof list>;
        let before = resourceServers(SERVERS, effective).map((s) => s.name);
        for (const next of lists.slice(1)) {
          effective = intersect(effective, next);
          const now = resourceServers(SERVERS, effective).map((s) => s.name);
          for (const s of now) expect(before).toContain(s);
          before = now;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("roots", () => {
  it("each working folder once, as a file:// uri", () => {
    expect(rootsOf(["/proj", "/proj/", "/extra dir"])).toEqual([
      { uri: "file:///proj", name: "proj" },
      { uri: "file:///extra%20dir", name: "extra dir" },
    ]);
  });
});
