import { describe, expect, it } from "vitest";
import { intersect, mayOfferPrefix, offered } from "../../src/permissions/index.js";
import { judge, list } from "../support/permissions.js";

// MCP tool names in allow and deny lists, one line per case: [allow, deny, tool, expected].
// `null` allow means no allow list at that level; "" deny means none.
type Case = [allow: string | null, deny: string, tool: string, expected: string];

const DECIDE: Case[] = [
  ["mcp__github", "", "mcp__github__get_issue", "allowed"],
  ["mcp__github", "", "mcp__github__a__b", "allowed"],
  ["mcp__github", "", "mcp__gitlab__get_issue", "denied: not-offered"],
  ["mcp__github", "", "mcp__github", "denied: not-offered"],
  ["mcp__github", "", "mcp__githubx__get_issue", "denied: not-offered"],
  ["mcp__github", "", "Read", "denied: not-offered"],
  ["mcp__github__*", "", "mcp__github__get_issue", "allowed"],
  ["mcp__github__*", "", "mcp__githubx__get_issue", "denied: not-offered"],
  ["mcp__github__get_issue", "", "mcp__github__get_issue", "allowed"],
  ["mcp__github__get_issue", "", "mcp__github__get_issues", "denied: not-offered"],
  ["mcp__github__get_issue", "", "mcp__github__get_issue_x", "denied: not-offered"],
  ["mcp__my-server", "", "mcp__my-server__t", "allowed"],
  ["mcp__my_server", "", "mcp__my_server__t", "allowed"],
  ["mcp__my_server", "", "mcp__my__server__t", "denied: not-offered"],
  ["*", "mcp__github", "mcp__github__get_issue", "denied: denied-by-rule"],
  ["*", "mcp__github", "mcp__gitlab__get_issue", "allowed"],
  ["*", "mcp__github", "Read", "allowed"],
  [null, "mcp__github", "mcp__github__x", "denied: denied-by-rule"],
  ["mcp__github", "mcp__github__delete_repo", "mcp__github__delete_repo", "denied: denied-by-rule"],
  ["mcp__github", "mcp__github__delete_repo", "mcp__github__get_issue", "allowed"],
  ["mcp__github__*", "mcp__github", "mcp__github__get_issue", "denied: denied-by-rule"],
  ["mcp__github(x)", "", "mcp__github__get_issue", "denied: bad-pattern"],
];

describe("decide: MCP names, one line per case", () => {
  it.each(DECIDE)("%s | deny %s | %s → %s", (allow, deny, tool, expected) => {
    expect(judge(list(allow, deny || undefined), tool, {})).toBe(expected);
  });
});

// [caller, callee, tool, expected]
type Hop = [caller: string | null, callee: string | null, tool: string, expected: string];

const HOPS: Hop[] = [
  ["mcp__github", "mcp__github__get_issue", "mcp__github__get_issue", "allowed"],
  ["mcp__github", "mcp__github__get_issue", "mcp__github__create_issue", "denied: not-offered"],
  ["mcp__github__*", "mcp__github__get_issue", "mcp__github__get_issue", "allowed"],
  ["mcp__github__*", "mcp__github__get_issue", "mcp__github__list_issues", "denied: not-offered"],
  ["mcp__github__get_issue", "mcp__github", "mcp__github__get_issue", "allowed"],
  ["mcp__github__get_issue", "mcp__github", "mcp__github__create_issue", "denied: not-offered"],
  ["mcp__github", "mcp__github__*", "mcp__github__x", "allowed"],
  ["mcp__github", "mcp__gitlab", "mcp__github__x", "denied: not-offered"],
  ["mcp__github", "mcp__gitlab", "mcp__gitlab__x", "denied: not-offered"],
  ["Read", "mcp__github", "mcp__github__x", "denied: not-offered"],
  ["*", "mcp__github", "mcp__github__x", "allowed"],
  ["*", "mcp__github", "Read", "denied: not-offered"],
  [null, "mcp__github__get_issue", "mcp__github__get_issue", "allowed"],
  ["mcp__github, Read", "mcp__github__get_issue, Read", "Read", "allowed"],
];

describe("intersect: MCP names, one line per case", () => {
  it.each(HOPS)("%s ∩ %s | %s → %s", (caller, callee, tool, expected) => {
    expect(judge(intersect(list(caller), list(callee)), tool, {})).toBe(expected);
  });

  it("nothing survives two different servers: the run is refused, not unrestricted", () => {
    expect(intersect(list("mcp__github"), list("mcp__gitlab")).rules).toEqual([]);
  });
});

// Whether a run with this list starts the server `github`: [allow, deny, expected].
type Reach = [allow: string | null, deny: string, starts: boolean];

const REACH: Reach[] = [
  [null, "", true],
  ["*", "", true],
  ["mcp__github", "", true],
  ["mcp__github__*", "", true],
  ["mcp__github__get_issue", "", true],
  ["mcp__github__get_*", "", false],
  ["mcp__gitlab", "", false],
  ["mcp__githubx", "", false],
  ["mcp__githubx__get_issue", "", false],
  ["mcp__git", "", false],
  ["Read, Bash(git:*)", "", false],
  ["Read", "", false],
  ["mcp__github", "mcp__github", false],
  ["*", "mcp__github__*", false],
  [null, "mcp__github", false],
  ["*", "*", false],
  ["*", "mcp__github__delete_repo", true],
  ["mcp__github__get_issue", "mcp__github__get_issue", false],
  ["*, Read(/tmp/**)", "", true],
  ["mcp__github__get_issue(x)", "", true],
];

describe("mayOfferPrefix: which servers a run starts, one line per case", () => {
  it.each(REACH)("%s | deny %s → %s", (allow, deny, starts) => {
    expect(mayOfferPrefix(list(allow, deny || undefined), "mcp__github__")).toBe(starts);
  });

  it("is never false for a server one of whose tools the list offers", () => {
    const names = ["mcp__github__get_issue", "mcp__github__a", "mcp__gitlab__a", "Read"];
    for (const [allow, deny] of REACH) {
      const l = list(allow, deny || undefined);
      const some = offered(l, names).some((n) => n.startsWith("mcp__github__"));
      if (some) expect(mayOfferPrefix(l, "mcp__github__")).toBe(true);
    }
  });
});
