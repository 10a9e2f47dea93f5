import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileList,
  decide,
  type EntryInput,
  intersect,
  mayOfferPrefix,
  offered,
  type PermissionList,
  pathSubject,
} from "../../src/permissions/index.js";
import { CTX, JUDGED, list, SPECS } from "../support/permissions.js";

const TOOLS = [
  "Read",
  "Write",
  "Edit",
  "Bash",
  "Glob",
  "Grep",
  "Task",
  "Agent",
  "Skill",
  "WebFetch",
  "mcp__a__x",
  "mcp__a__y",
  "mcp__b__z",
  "mcp__ab__x",
  "mcp__a__x__y",
];
const PATTERNS: Record<string, string[]> = {
  Bash: [
    "git:*",
    "git status",
    "git",
    "git diff:*",
    "git push:*",
    "npm:*",
    "npm install",
    "*",
    "ls *",
    "rm:*",
    "curl:*",
    "head:*",
    "git * x",
  ],
  Read: ["/tmp/**", "/tmp/*.log", "/tmp/a/**", "/etc/passwd", "src/**", "/tmp", "/**", "/tmp/a*", "~/x/**"],
  Write: ["/tmp/**", "/proj/**", "/etc/passwd"],
  Edit: ["/proj/**", "/proj/src/**", "/tmp/a"],
  Glob: ["/proj/**", "/proj/src/**", "/tmp/**"],
  Grep: ["/proj/**", "/tmp/**"],
  Task: ["reviewer", "review-*", "*", "deployer"],
  Agent: ["reviewer", "review-*"],
  Skill: ["pdf-*", "pdf-tools", "docx"],
  WebFetch: ["domain:a.io", "domain:*.a.io", "domain:b.io", "a.io"],
};
const VALUES: Record<string, unknown[]> = {
  Bash: [
    "git",
    "git status",
    "git  status",
    "git diff HEAD",
    "gitk",
    "npm install",
    "npm test",
    "ls -la",
    "rm -rf x",
    "git status; rm -rf /",
    "git $(x)",
    "git log | head -5",
    "git status && npm test",
    "git push origin",
    "git -C . push",
    "env git push",
    "curl x | sh",
    "echo $(curl x)",
    "git log > /tmp/a",
    "git log > /proj/a 2>&1",
    "ls > /etc/passwd",
    "$X status",
    "eval git status",
    "(git status; ls -la)",
    "",
    3,
    null,
  ],
  Read: [
    "/tmp/a",
    "/tmp/a/b.log",
    "/tmp/x.log",
    "/tmp/../etc/passwd",
    "/etc/passwd",
    "src/a.ts",
    "/tmp",
    "/home/u/x/y",
    "",
    1,
  ],
  Write: ["/tmp/a", "/proj/a", "/etc/passwd", "x"],
  Edit: ["/tmp/a", "/proj/src/a", "/proj/b"],
  Glob: [undefined, "/proj/src", "src", "/tmp", ""],
  Grep: [undefined, "/proj/src", "/tmp/a", "/etc"],
  Task: ["reviewer", "review-x", "deployer", "", 2],
  Agent: ["reviewer", "review-x", "deployer"],
  Skill: ["pdf-tools", "pdf-x", "docx", ""],
  WebFetch: ["https://a.io/", "https://x.a.io/", "https://b.io/", "nope"],
};
const FIELD: Record<string, string> = {
  Bash: "command",
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  Glob: "path",
  Grep: "path",
  Task: "subagent_type",
  Agent: "subagent_type",
  Skill: "skill",
  WebFetch: "url",
};

const entryArb: fc.Arbitrary<EntryInput> = fc
  .oneof(
    { weight: 5, arbitrary: fc.constantFrom(...TOOLS) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("*", "mcp__a__*", "mcp__a", "mcp__b", "mcp__ab", "mcp__a__x__*"),
    },
  )
  .chain((name) => {
    const patterns = PATTERNS[name];
    const withPattern = patterns
      ? fc.option(fc.constantFrom(...patterns), { nil: undefined })
      : fc.constant(undefined);
    return withPattern.map((pattern) => ({
      name,
      pattern,
      raw: pattern === undefined ? name : `${name}(${pattern})`,
      at: { file: "gen.md", line: 1, column: 1 },
    }));
  });

const listArb: fc.Arbitrary<PermissionList> = fc
  .record({
    allow: fc.option(fc.array(entryArb, { maxLength: 5 }), { nil: undefined }),
    deny: fc.array(entryArb, { maxLength: 2 }),
  })
  .map(({ allow, deny }) => compileList(allow, deny, CTX));

const callArb = fc.constantFrom(...TOOLS).chain((tool) => {
  const values = VALUES[tool] ?? ["x"];
  return fc.constantFrom(...values).map((v) => ({ tool, input: { [FIELD[tool] ?? "value"]: v } }));
});

const allowed = (l: PermissionList, call: { tool: string; input: unknown }) =>
  decide(l, call, JUDGED).kind === "allowed";

const RUNS = { numRuns: 3000 };

describe("intersection properties over random lists and calls", () => {
  it("never widens: allowed(A∩B, c) ⇒ allowed(A, c) ∧ allowed(B, c)", () => {
    fc.assert(
      fc.property(listArb, listArb, callArb, (a, b, c) => {
        if (allowed(intersect(a, b), c)) {
          expect(allowed(a, c)).toBe(true);
          expect(allowed(b, c)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("loses nothing both allow: allowed(A, c) ∧ allowed(B, c) ⇒ allowed(A∩B, c)", () => {
    fc.assert(
      fc.property(listArb, listArb, callArb, (a, b, c) => {
        if (allowed(a, c) && allowed(b, c)) expect(allowed(intersect(a, b), c)).toBe(true);
      }),
      RUNS,
    );
  });

  it("chains are associative in what they allow", () => {
    fc.assert(
      fc.property(listArb, listArb, listArb, callArb, (a, b, c, call) => {
        expect(allowed(intersect(intersect(a, b), c), call)).toBe(
          allowed(intersect(a, intersect(b, c)), call),
        );
      }),
      RUNS,
    );
  });

  it("offers no tool that either side would not offer", () => {
    fc.assert(
      fc.property(listArb, listArb, (a, b) => {
        const both = offered(intersect(a, b), TOOLS);
        const either = new Set(offered(a, TOOLS).filter((t) => offered(b, TOOLS).includes(t)));
        for (const t of both) expect(either.has(t)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe("compound commands over random lists", () => {
  const simple = fc.constantFrom(
    "git status",
    "git log -1",
    "git push origin",
    "npm test",
    "npm install",
    "ls -la",
    "rm -rf x",
    "curl x",
    "head -5",
    "echo hi",
  );
  const join = fc.constantFrom("; ", " && ", " || ", " | ", "\n");
  const wrap = fc.constantFrom(
    (s: string) => s,
    (s: string) => `(${s})`,
    (s: string) => `echo $(${s})`,
    (s: string) => `{ ${s}; }`,
  );
  const bash = (command: string) => ({ tool: "Bash", input: { command } });

  it("allows no compound command that one of its parts would not be allowed alone", () => {
    fc.assert(
      fc.property(
        listArb,
        fc.array(simple, { minLength: 2, maxLength: 4 }),
        join,
        wrap,
        (l, parts, op, w) => {
          const line = w(parts.join(op));
          if (allowed(l, bash(line))) for (const part of parts) expect(allowed(l, bash(part))).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it("with Bash unrestricted, a redirection never writes where a deny rule on Write or Edit says no", () => {
    const deny = fc.constantFrom("Edit(/proj/src/**)", "Write(/proj/src/**)", "Write", "Edit(/etc/**)");
    const target = fc.constantFrom("/proj/src/a.ts", "src/b.ts", "/etc/passwd", "/tmp/x", "../proj/src/c");
    fc.assert(
      fc.property(
        deny,
        fc.array(simple, { minLength: 1, maxLength: 3 }),
        join,
        wrap,
        target,
        (d, parts, op, w, file) => {
          const l = list("Bash", d);
          const line = w(`${parts.join(op)} > ${file}`);
          const abs = path.posix.resolve("/proj", file);
          const writeDenied = ["Write", "Edit"].some(
            (t) => !allowed(list("Write, Edit", d), { tool: t, input: { file_path: abs } }),
          );
          if (writeDenied) expect(allowed(l, bash(line))).toBe(false);
        },
      ),
      RUNS,
    );
  });

  it("a redirection never writes where a Write would not be allowed", () => {
    // The premise is generated, not filtered: Bash admits the command, and the redirection aims
    // at a path one of the list's own Write rules speaks of (allowed or denied), or at none.
    const areas: readonly (readonly [pattern: string, inside: (name: string) => string])[] = [
      ["/tmp/**", (n) => `/tmp/${n}`],
      ["/proj/**", (n) => n],
      ["/proj/out/*.json", (n) => `out/${n}.json`],
      ["/etc/passwd", () => "/etc/passwd"],
    ];
    const area = fc.constantFrom(...areas);
    const scenario = fc
      .record({
        part: simple,
        allows: fc.array(area, { maxLength: 2 }),
        denies: fc.array(area, { maxLength: 1 }),
        name: fc.constantFrom("a", "b.txt", "x.log"),
      })
      .chain((c) =>
        fc
          .constantFrom(...c.allows, ...c.denies, ["(none)", (n: string) => `/var/${n}`] as const)
          .map(([, inside]) => ({ ...c, file: inside(c.name) })),
      );
    const seen = { allowed: 0, denied: 0 };
    fc.assert(
      fc.property(scenario, ({ part, allows, denies, file }) => {
        const program = part.split(" ")[0];
        const allow = [`Bash(${program}:*)`, ...allows.map(([p]) => `Write(${p})`)].join(", ");
        const l = list(allow, denies.map(([p]) => `Write(${p})`).join(", ") || undefined);
        const write = allowed(l, { tool: "Write", input: { file_path: file } });
        seen[write ? "allowed" : "denied"]++;
        expect([file, allowed(l, bash(`${part} > ${file}`))]).toEqual([file, write]);
      }),
      RUNS,
    );
    // Both sides of the law are exercised, each in a good share of the runs.
    expect(seen.allowed).toBeGreaterThan(RUNS.numRuns / 5);
    expect(seen.denied).toBeGreaterThan(RUNS.numRuns / 5);
  });
});

describe("code the parser would not show as commands", () => {
  const denied = fc.constantFrom("rm -rf x", "curl x", "git push origin", "npm install", "echo hi", "ls -la");
  const carrier = fc.constantFrom("git status", "echo hi", "npm test", "ls");
  /** Ways to hide a command: as an expansion's operand, or as a value bash evaluates again. */
  const hide = fc.constantFrom(
    (c: string, d: string) => `${c} \${X:-\`${d}\`}`,
    (c: string, d: string) => `${c} \${X:-$(${d})}`,
    (c: string, d: string) => `${c} "\${X-\`${d}\`}"`,
    (c: string, d: string) => `${c} \${X:+\`${d}\`}`,
    (c: string, d: string) => `${c} \${X#$(${d})}`,
    (c: string, d: string) => `${c} \${X/a/\`${d}\`}`,
    (c: string, d: string) => `${c} "\${X:-'$(${d})'}"`,
    (c: string, d: string) => `a='x[$(${d})]'; ${c} $((a))`,
    (c: string, d: string) => `a='x[$(${d})]'; ${c} \${y[a]}`,
    (c: string, d: string) => `a='x[\`${d}\`]'; ${c} \${y:a}`,
    (c: string, d: string) => `a='x[$(${d})]'; [[ $a -eq 1 ]] && ${c}`,
    (c: string, d: string) => `X='$(${d})'; ${c} \${X@P}`,
    (c: string, d: string) => `${c} <<EOF\n\`${d}\`\nEOF`,
  );
  const bash = (command: string) => ({ tool: "Bash", input: { command } });

  it("wrapping a command that is not allowed in an expansion or an arithmetic context never makes it allowed", () => {
    fc.assert(
      fc.property(listArb, denied, carrier, hide, (l, d, c, h) => {
        if (!allowed(l, bash(d))) expect(allowed(l, bash(h(c, d)))).toBe(false);
      }),
      RUNS,
    );
  });

  it("a redirection after cd never writes where a Write of the path it lands on would not be allowed", () => {
    const l = list("Bash(cd:*), Bash(pushd:*), Bash(echo:*), Write(/proj/out/**)");
    const dir = fc.constantFrom("/tmp", "..", "out", "/proj", "sub", "/");
    const mover = fc.constantFrom("cd", "pushd");
    const target = fc.constantFrom("out/x", "x", "/proj/out/y", "../out/z", "/etc/x");
    const join = fc.constantFrom(" && ", "; ", "\n");
    fc.assert(
      fc.property(mover, dir, join, target, (m, d, j, t) => {
        const lands = path.posix.resolve("/proj", d, t);
        if (allowed(l, bash(`${m} ${d}${j}echo x > ${t}`)))
          expect(allowed(l, { tool: "Write", input: { file_path: lands } })).toBe(true);
      }),
      RUNS,
    );
  });

  it("under any Bash deny pattern, git config that sets a value is never allowed", () => {
    const key = fc.constantFrom("alias.x", "core.pager", "core.fsmonitor", "user.name", "alias.p");
    const value = fc.constantFrom("'!rm v'", "push", "'rm v'", "x");
    const scope = fc.constantFrom("", "--global ", "--local ", "--add ", "--replace-all ");
    const deny = fc.constantFrom("Bash(rm:*)", "Bash(git push:*)", "Bash(curl:*)");
    fc.assert(
      fc.property(key, value, scope, deny, (k, v, sc, dn) => {
        expect(allowed(list("Bash(git:*)", dn), bash(`git config ${sc}${k} ${v}`))).toBe(false);
      }),
      RUNS,
    );
  });
});

/** An independent lexical normaliser: the reference the engine's subject is checked against. */
function resolveReference(cwd: string, p: string): string {
  const stack: string[] = [];
  for (const seg of `${p.startsWith("/") ? "" : cwd}/${p}`.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") stack.pop();
    else stack.push(seg);
  }
  return `/${stack.join("/")}`;
}

describe("path subjects", () => {
  const segment = fc.constantFrom("..", ".", "", "tmp", "etc", "a", "b", "x.log", "..a", "...", ".hidden");
  const pathArb = fc
    .tuple(fc.boolean(), fc.array(segment, { maxLength: 8 }), fc.boolean())
    .map(([absolute, segs, trailing]) => `${absolute ? "/" : ""}${segs.join("/")}${trailing ? "/" : ""}`);
  const cwdArb = fc.constantFrom("/", "/tmp", "/tmp/a", "/proj", "/etc");

  it("a path allowed by Read(/dir/**) never lies outside /dir, whatever '..', '.' or '//' it holds", () => {
    const l = compileList(
      [{ name: "Read", pattern: "/tmp/**", raw: "Read(/tmp/**)", at: { file: "f", line: 1, column: 1 } }],
      undefined,
      CTX,
    );
    fc.assert(
      fc.property(pathArb, cwdArb, (p, cwd) => {
        if (p === "") return;
        const ok =
          decide(l, { tool: "Read", input: { file_path: p } }, { specs: SPECS, cwd }).kind === "allowed";
        const real = resolveReference(cwd, p);
        expect(pathSubject(p, cwd)).toBe(real);
        if (ok) expect(real === "/tmp" || real.startsWith("/tmp/")).toBe(true);
        else expect(real === "/tmp" || real.startsWith("/tmp/")).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("which MCP servers a run starts", () => {
  const prefixArb = fc.constantFrom("mcp__a__", "mcp__b__", "mcp__ab__");

  it("a server is started whenever the list offers one of its tools (never missed)", () => {
    fc.assert(
      fc.property(listArb, prefixArb, (l, prefix) => {
        const some = offered(l, TOOLS).some((t) => t.startsWith(prefix));
        if (some) expect(mayOfferPrefix(l, prefix)).toBe(true);
      }),
      RUNS,
    );
  });

  it("a server that a caller would not start is not started below it either", () => {
    fc.assert(
      fc.property(listArb, listArb, prefixArb, (a, b, prefix) => {
        if (!mayOfferPrefix(a, prefix)) expect(mayOfferPrefix(intersect(a, b), prefix)).toBe(false);
      }),
      RUNS,
    );
  });
});
