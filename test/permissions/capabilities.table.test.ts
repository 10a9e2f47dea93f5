import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  admitsNothing,
  type Grant,
  gainedGrants,
  grantsOf,
  grantText,
  widestGrants,
} from "../../src/permissions/capabilities.js";
import { dangerOf } from "../../src/permissions/dangerous-grants.js";
import {
  compileList,
  decide,
  type EntryInput,
  type PermissionList,
  toolMatcher,
} from "../../src/permissions/index.js";
import { CTX, JUDGED, list, SPECS } from "../support/permissions.js";

const NAMES = [
  "Read",
  "Write",
  "Edit",
  "Bash",
  "Glob",
  "Grep",
  "Task",
  "Skill",
  "WebFetch",
  "mcp__github__get_issue",
  "mcp__github__*",
  "*",
];
const AT = { projectDir: "/proj", home: "/home/u" };
const grants = (l: PermissionList) => grantsOf(l, NAMES, SPECS);
const texts = (gs: readonly Grant[]) => gs.map((g) => grantText(g, AT));
const parse = (side: string): PermissionList => {
  const [allow, deny] = side.split(" | ");
  return list(allow === "-" ? null : (allow ?? null), deny);
};
/** What `next` gained over `prior`; lists are `ALLOW | DENY`, `-` for no allow list. */
const gained = (prior: string, next: string) =>
  texts(gainedGrants(grants(parse(next)), grants(parse(prior))));

describe("what a change gained, one case a line", () => {
  const cases: [prior: string, next: string, gained: string[]][] = [
    ["Bash(git:*)", "Bash(git status)", []],
    ["Bash(git status)", "Bash(git:*)", ["Bash(git:*)"]],
    ["Bash(git:*)", "Bash(*)", ["Bash(*)"]],
    ["Bash(*)", "Bash(npm test)", []],
    ["Read(src/**)", "Read(src/a.ts)", []],
    ["Read(src/a.ts)", "Read(src/**)", ["Read(src/**)"]],
    ["Read(src/**)", "Read", ["Read"]],
    ["Read | Read(.env)", "Read", ["Read"]],
    ["Read | Read(.env)", "Read | Read(.env), Read(secrets/**)", []],
    ["Read | Read(/etc/**)", "Read | Read(/etc/passwd)", ["Read except Read(/etc/passwd)"]],
    ["Read(src/**) | Read(.env)", "Read(src/**)", []],
    ["Bash(git:*) | Bash(git push:*)", "Bash(git:*)", ["Bash(git:*)"]],
    ["Bash(git:*) | Bash(git push:*)", "Bash(git:*) | Bash(git:*)", []],
    // A command deny refuses what it cannot rule out (`xargs git push`): dropping it gains.
    ["Bash(xargs:*) | Bash(git push:*)", "Bash(xargs:*)", ["Bash(xargs:*)"]],
    ["Grep | Read(.env)", "Grep", ["Grep"]],
    ["WebFetch(domain:a.io)", "WebFetch(domain:a.io)", []],
    // Not judged certain: reported as a gain (a guard, not a proof).
    ["WebFetch(domain:*.a.io)", "WebFetch(domain:x.a.io)", ["WebFetch(domain:x.a.io)"]],
    ["Task(reviewer)", "Task(review-*)", ["Task(review-*)"]],
    ["Task(review-*)", "Task(review-x)", []],
    ["Read", "Read, Grep", ["Grep"]],
    ["mcp__github__*", "mcp__github__get_issue", []],
    ["mcp__github__get_issue", "mcp__github", ["mcp__github__*"]],
    // A server's other tools, but for one denied by name: dropping that deny gains.
    ["mcp__github | mcp__github__create_issue", "mcp__github", ["mcp__github__*"]],
    ["mcp__github", "mcp__github | mcp__github__create_issue", []],
    // A tool its deny empties is no capability.
    ["Read", "Read, Bash(git push:*) | Bash(git push:*)", []],
    ["Read", "Read, Write(src/**) | Write(src/**)", []],
    ["Read", "Read, Write(src/a/**) | Write(src/**)", []],
    ["Read", "Read, Write(src/**) | Write(src/a/**)", ["Write(src/**) except Write(src/a/**)"]],
    ["-", "Read, Bash", []],
    [
      "Read",
      "-",
      [
        "Write",
        "Edit",
        "Bash",
        "Glob",
        "Grep",
        "Task",
        "Skill",
        "WebFetch",
        "mcp__github__get_issue",
        "mcp__github__*",
        "*",
      ],
    ],
    ["Read", "Read, Bash(git * x)", []],
    ["Read", "Write(src/**) ", ["Write(src/**)"]],
    ["Edit(src/**)", "Edit(src/**), Write", ["Write(src/**)"]],
    ["Edit(src/**)", "Write", ["Write"]],
  ];
  it.each(cases)("%s → %s", (prior, next, want) => {
    expect(gained(prior, next)).toEqual(want);
  });
});

describe("the widest grants of a union", () => {
  it("keeps only what nothing else covers, the first of equals", () => {
    const all = [
      ...grants(list("Bash(git diff:*), Read(src/**)")),
      ...grants(list("Bash(git:*), Read(src/**)")),
    ];
    expect(texts(widestGrants(all))).toEqual(["Read(src/**)", "Bash(git:*)"]);
  });
});

describe("dangerous grants, from the tools' declarations", () => {
  const danger = (allow: string) =>
    grants(list(allow)).flatMap((g) => dangerOf(g, SPECS, "/proj")?.text ?? []);
  it.each([
    ["Bash", ["Bash runs any command"]],
    ["Bash(*)", ["Bash runs any command"]],
    ["Bash(git:*)", []],
    ["Write", ["Write writes anywhere"]],
    ["Write(src/**)", []],
    ["Edit(/tmp/**), Write", ["Write writes outside the project", "Edit writes outside the project"]],
    ["WebFetch", ["WebFetch reaches any domain"]],
    ["WebFetch(domain:a.io)", []],
    ["Read, Grep", []],
  ])("%s", (allow, want) => {
    expect(danger(allow)).toEqual(want);
  });
});

// A cover the audit says is certain must be one: if nothing was gained, nothing new is allowed.
const POOL: Record<string, string[]> = {
  Bash: ["git:*", "git status", "git diff:*", "git push:*", "npm test", "*", "xargs:*", "git * x"],
  Read: ["/tmp/**", "/tmp/a", "src/**", "src/a.ts", "/**", ".env", "/proj/**"],
  Write: ["/tmp/**", "src/**", "/proj/a"],
  Edit: ["src/**", "/tmp/**"],
  Grep: ["/proj/**", "src/**"],
  Task: ["reviewer", "review-*", "*"],
  Skill: ["pdf-*", "docx"],
  WebFetch: ["domain:a.io", "domain:*.a.io"],
};
const CALLS: [string, string, unknown[]][] = [
  [
    "Bash",
    "command",
    [
      "git status",
      "git diff HEAD",
      "git push",
      "npm test",
      "xargs git push",
      "ls",
      "git log > /tmp/a",
      "git -C . push",
    ],
  ],
  ["Read", "file_path", ["/tmp/a", "/proj/src/a.ts", "/proj/.env", "/etc/passwd"]],
  ["Write", "file_path", ["/tmp/a", "/proj/src/x", "/proj/a"]],
  ["Edit", "file_path", ["/proj/src/x", "/tmp/b"]],
  ["Grep", "path", ["/proj/src", "/proj", "/proj/.env"]],
  ["Task", "subagent_type", ["reviewer", "review-x", "other"]],
  ["Skill", "skill", ["pdf-x", "docx"]],
  ["WebFetch", "url", ["https://a.io/", "https://x.a.io/"]],
  ["mcp__github__get_issue", "x", ["1"]],
  ["mcp__other__x", "x", ["1"]],
];
const entry = fc.constantFrom(...Object.keys(POOL), "mcp__github__*", "mcp__github", "*").chain((name) => {
  const patterns = POOL[name];
  return (
    patterns ? fc.option(fc.constantFrom(...patterns), { nil: undefined }) : fc.constant(undefined)
  ).map(
    (pattern): EntryInput => ({
      name,
      pattern,
      raw: pattern === undefined ? name : `${name}(${pattern})`,
      at: { file: "gen.md", line: 1, column: 1 },
    }),
  );
});
const listArb = fc
  .record({
    allow: fc.option(fc.array(entry, { maxLength: 4 }), { nil: undefined }),
    deny: fc.array(entry, { maxLength: 2 }),
  })
  .map(({ allow, deny }) => compileList(allow, deny, CTX));
const callArb = fc
  .constantFrom(...CALLS)
  .chain(([tool, field, values]) => fc.constantFrom(...values).map((v) => ({ tool, input: { [field]: v } })));
const allows = (l: PermissionList, call: { tool: string; input: unknown }) =>
  decide(l, call, JUDGED).kind === "allowed";

describe("the cover relation never misses a widening", () => {
  it("nothing gained ⇒ every call the new list allows, the old one allowed", () => {
    fc.assert(
      fc.property(listArb, listArb, callArb, (prior, next, call) => {
        const names = [...NAMES, "mcp__other__x"];
        if (gainedGrants(grantsOf(next, names, SPECS), grantsOf(prior, names, SPECS)).length > 0) return;
        if (allows(next, call)) expect(allows(prior, call)).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });

  // The audit leaves out grants that admit nothing: that must be certain.
  it("a grant said to admit nothing admits no call", () => {
    fc.assert(
      fc.property(listArb, callArb, (l, call) => {
        for (const g of grantsOf(l, NAMES, SPECS).filter(admitsNothing)) {
          // A grant is of one tool (or of the tools named nowhere): its rule may cover others.
          const mine = NAMES.includes(call.tool)
            ? g.tool === call.tool
            : toolMatcher(g.tool).kind !== "exact";
          if (!mine) continue;
          const rule = g.rule ?? { tool: toolMatcher(g.tool), constraints: [], origins: [] };
          expect(allows({ rules: [rule], deny: g.denies }, call)).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
  });

  // A redirection (`git log > /tmp/a`) is judged as a Write too, which the Write grants report.
  it("a list's grants admit every call the list allows", () => {
    fc.assert(
      fc.property(listArb, callArb, (l, call) => {
        if (!allows(l, call) || JSON.stringify(call.input).includes(">")) return;
        const mine = grantsOf(l, NAMES, SPECS).filter((g) =>
          NAMES.includes(call.tool) ? g.tool === call.tool : toolMatcher(g.tool).kind !== "exact",
        );
        const admitted = mine.some((g) =>
          allows(
            {
              rules: [g.rule ?? { tool: toolMatcher(g.tool), constraints: [], origins: [] }],
              deny: g.denies,
            },
            call,
          ),
        );
        expect(admitted).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
