import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/definitions/settings.js";
import { NO_SETTINGS } from "../../src/definitions/settings.js";
import { approvalPolicy } from "../../src/invocation/approvals.js";
import { type ApprovalPolicy, approve, sessionRuleFor } from "../../src/permissions/approval.js";
import { loadShellParser } from "../../src/permissions/index.js";
import { readOnlyOperands } from "../../src/tools/builtin/read-only-commands.js";
import { CTX, entries, list, SPECS } from "../support/permissions.js";

const shell = await loadShellParser();
/** The project's package.json: `npm test` runs its script, which the ask rules judge too. */
const PACKAGE = JSON.stringify({ scripts: { test: "vitest run" } });
const ctx = {
  specs: SPECS,
  cwd: "/proj",
  shell,
  readFile: (p: string) => (p === "/proj/package.json" ? PACKAGE : undefined),
};
/** `permissions.ask` rules as the policy holds them: as written, and compiled as a deny list. */
const asking = (rules: string) => ({ ask: list(rules), askGuard: list(null, rules) });
const policy = (over: Partial<ApprovalPolicy> = {}): ApprovalPolicy => ({
  mode: "default",
  preApproved: list("Bash(npm test:*), Edit(src/**)"),
  ...asking("Bash(git push:*)"),
  workingDirs: ["/proj"],
  ...over,
});
const readOnly = (input: unknown) =>
  readOnlyOperands((input as { command?: unknown } | undefined)?.command, shell);
const verdict = (p: ApprovalPolicy, tool: string, input: Record<string, unknown>) => {
  const a = approve(p, { tool, input }, ctx, [], readOnly);
  return a.kind === "ask" ? `ask: ${a.reason}` : a.kind;
};

describe("the approval tier of a call the lists allow", () => {
  const cases: [PermissionMode, string, Record<string, unknown>, string][] = [
    ["default", "Read", { file_path: "/proj/a.txt" }, "allowed"],
    ["default", "Read", { file_path: "/etc/hosts" }, "ask: it reads outside the working folders"],
    ["default", "Grep", { pattern: "x" }, "allowed"],
    ["default", "Task", { subagent_type: "x", prompt: "p", description: "d" }, "allowed"],
    ["default", "Bash", { command: "npm test -- --watch=false" }, "allowed"],
    // Read-only commands run as reads do: when every path they could read is in a working folder.
    ["default", "Bash", { command: "ls" }, "allowed"],
    ["default", "Bash", { command: "pwd" }, "allowed"],
    ["default", "Bash", { command: "git log --oneline -10" }, "allowed"],
    ["default", "Bash", { command: "git branch --show-current" }, "allowed"],
    ["default", "Bash", { command: "cat CLAUDE.md | head -5" }, "allowed"],
    ["default", "Bash", { command: "git diff HEAD" }, "allowed"],
    ["default", "Bash", { command: "git branch topic" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "git branch -D main" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "cat /etc/passwd" }, "ask: it reads outside the working folders"],
    ["default", "Bash", { command: "cat ../x" }, "ask: it reads outside the working folders"],
    ["default", "Bash", { command: "wc -l < /etc/passwd" }, "ask: it reads outside the working folders"],
    ["default", "Bash", { command: "grep -f/etc/shadow x" }, "ask: it reads outside the working folders"],
    [
      "default",
      "Bash",
      { command: "sort --files0-from=/etc/x" },
      "ask: it reads outside the working folders",
    ],
    ["default", "Bash", { command: "ls ~" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "sort -o out a" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "ls > out.txt" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "touch /tmp/x" }, "ask: it is not pre-approved"],
    ["default", "Bash", { command: "git push" }, "ask: a permissions.ask rule asks for it each time"],
    ["default", "Edit", { file_path: "/proj/src/a.ts" }, "allowed"],
    ["default", "Edit", { file_path: "/proj/docs/a.md" }, "ask: it is not pre-approved"],
    ["default", "WebFetch", { url: "https://example.com" }, "ask: it is not pre-approved"],
    ["acceptEdits", "Write", { file_path: "/proj/docs/a.md" }, "allowed"],
    ["acceptEdits", "Write", { file_path: "/elsewhere/a.md" }, "ask: it is not pre-approved"],
    ["acceptEdits", "Bash", { command: "ls" }, "allowed"],
    ["acceptEdits", "Bash", { command: "rm a" }, "ask: it is not pre-approved"],
    ["plan", "Read", { file_path: "/etc/hosts" }, "allowed"],
    ["plan", "Bash", { command: "git status" }, "allowed"],
    ["plan", "Bash", { command: "npm test" }, "denied"],
    ["plan", "Write", { file_path: "/proj/src/a.ts" }, "denied"],
    ["bypassPermissions", "Bash", { command: "git push" }, "allowed"],
    ["bypassPermissions", "WebFetch", { url: "https://example.com" }, "allowed"],
  ];
  it.each(cases)("%s: %s %j → %s", (mode, tool, input, expected) => {
    expect(verdict(policy({ mode }), tool, input)).toBe(expected);
  });

  it("agent.md's list is the approval: every call it allows runs, except what a rule asks for", () => {
    const p = policy({ preApproved: null });
    expect(verdict(p, "Bash", { command: "ls" })).toBe("allowed");
    expect(verdict(p, "Bash", { command: "git push origin" })).toBe(
      "ask: a permissions.ask rule asks for it each time",
    );
  });

  it("a working folder of / holds every path (the check is not for a `//` prefix)", () => {
    expect(verdict(policy({ workingDirs: ["/"] }), "Read", { file_path: "/etc/hosts" })).toBe("allowed");
    expect(
      verdict(policy({ mode: "acceptEdits", workingDirs: ["/"] }), "Write", { file_path: "/a.md" }),
    ).toBe("allowed");
    expect(verdict(policy(), "Read", { file_path: "/etc/hosts" })).toBe(
      "ask: it reads outside the working folders",
    );
  });

  it("what a user allowed for the session runs without asking again", () => {
    const session = list(sessionRuleFor({ tool: "Bash", input: { command: "pytest -x tests" } }, shell));
    expect(
      approve(policy(), { tool: "Bash", input: { command: "pytest tests/a.py" } }, ctx, [session]).kind,
    ).toBe("allowed");
    expect(approve(policy(), { tool: "Bash", input: { command: "rm x" } }, ctx, [session]).kind).toBe("ask");
  });
});

describe("settings rules as Claude Code reads them", () => {
  it("an Edit path rule pre-approves every editing tool, a Read rule every reading one", () => {
    const settings = { ...NO_SETTINGS, allow: entries("Edit(src/**), Read(/data/**)") };
    const p = approvalPolicy({ settings, allow: [], mainApproves: false, workingDirs: ["/proj"], ctx: CTX });
    expect(verdict(p, "Write", { file_path: "/proj/src/a.ts" })).toBe("allowed");
    expect(verdict(p, "Write", { file_path: "/proj/docs/a.md" })).toBe("ask: it is not pre-approved");
    expect(verdict(p, "Grep", { pattern: "x", path: "/data/logs" })).toBe("allowed");
    expect(verdict(p, "Grep", { pattern: "x", path: "/srv" })).toBe(
      "ask: it reads outside the working folders",
    );
  });
});

describe("the rule a session answer allows", () => {
  it.each([
    ["git status --short", "Bash(git status:*)"],
    ["npm run build", "Bash(npm run:*)"],
    ["ls -la", "Bash(ls:*)"],
    ["./scripts/x.sh a", "Bash(./scripts/x.sh:*)"],
    ["$(whoami)", "Bash"],
    ["git status --short && npm install", "Bash(git status:*), Bash(npm install:*)"],
    ["cat a | grep x | grep y", "Bash(cat:*), Bash(grep:*)"],
  ])("Bash %j → %s", (command, rule) => {
    expect(sessionRuleFor({ tool: "Bash", input: { command } }, shell)).toBe(rule);
  });
  it("another tool: the tool", () => {
    expect(sessionRuleFor({ tool: "Write", input: { file_path: "/x" } }, shell)).toBe("Write");
  });
});

describe("properties", () => {
  const tools = ["Read", "Write", "Edit", "Bash", "WebFetch", "Glob", "Grep", "LS", "MultiEdit", "mcp__s__t"];
  const inputs = fc.record({
    command: fc.constantFrom("ls", "git status", "rm -rf /", "npm test", "git push", "echo x > f"),
    file_path: fc.constantFrom("/proj/a", "/proj/src/a.ts", "/etc/passwd", "/proj/../etc/x", "rel.txt"),
    url: fc.constantFrom("https://a.example", "http://b.example/x"),
    pattern: fc.constant("x"),
  });

  it("with nothing pre-approved, only reading tools inside the working folders run without asking", () => {
    fc.assert(
      fc.property(fc.constantFrom(...tools), inputs, (tool, input) => {
        const a = approve(policy({ preApproved: list(""), ask: null, askGuard: null }), { tool, input }, ctx);
        if (a.kind === "allowed") expect(["Read", "Glob", "Grep", "LS"]).toContain(tool);
      }),
    );
  });

  it("in the default mode a command runs unasked only when it only reads, and only inside the working folders", () => {
    const program = fc.constantFrom(
      "cat",
      "ls",
      "head -n 2",
      "git log",
      "git diff --output=out",
      "grep -r x",
      "sort -o out",
      "wc -l",
    );
    const word = fc.constantFrom(
      "a.txt",
      "src/",
      "/proj/b",
      "/etc/passwd",
      "../up",
      "src/../../x",
      "-f/etc/x",
      "--file=../y",
      "> out",
      "< /etc/hosts",
      "< in.txt",
      "| tee f",
      "&& rm -rf src",
    );
    const nothing = policy({ preApproved: list(""), ask: null, askGuard: null });
    fc.assert(
      fc.property(program, fc.array(word, { maxLength: 3 }), (prog, words) => {
        const command = [prog, ...words].join(" ");
        const a = approve(nothing, { tool: "Bash", input: { command } }, ctx, [], readOnly);
        const outside = /\/etc|\.\.\//.test(command);
        const writes = /-o out|--output|> out|tee|rm /.test(command);
        if (a.kind === "allowed") {
          expect(readOnly({ command })).toBeDefined();
          expect(outside || writes, command).toBe(false);
        } else if (!outside && !writes) expect(a.kind, command).toBe("allowed");
      }),
      { numRuns: 400 },
    );
  });

  it("plan mode never runs a writing tool or a command that is not read-only", () => {
    fc.assert(
      fc.property(fc.constantFrom(...tools), inputs, fc.boolean(), (tool, input, pre) => {
        const p = policy({ mode: "plan", preApproved: pre ? null : list("Bash, Write, Edit") });
        const a = approve(p, { tool, input }, ctx, [list("Bash, Write")], readOnly);
        if (a.kind === "allowed") {
          expect(["Write", "Edit", "MultiEdit", "WebFetch", "mcp__s__t"]).not.toContain(tool);
          if (tool === "Bash") expect(readOnly(input)).toBeDefined();
        }
      }),
    );
  });

  it("a permissions.ask rule always asks, whatever else pre-approves the call (but bypass)", () => {
    fc.assert(
      fc.property(inputs, fc.constantFrom<PermissionMode>("default", "acceptEdits"), (input, mode) => {
        const p = policy({ mode, preApproved: null, ...asking("Bash(git push:*)") });
        const a = approve(p, { tool: "Bash", input: { ...input, command: "git push" } }, ctx, [list("Bash")]);
        expect(a.kind).toBe("ask");
      }),
    );
  });

  it("an ask rule asks for every part of a compound command, and for the evasions a deny rule catches", () => {
    const p = policy({
      preApproved: list("Bash(git:*), Bash(echo:*)"),
      ...asking("Bash(git tag:*), Bash(touch:*)"),
    });
    for (const command of [
      "git tag v1",
      "echo hi; touch x",
      "git status && git tag v2",
      "git -C . tag v3",
      "git --no-pager tag v4",
      "git status $(git tag v5)",
    ])
      expect(verdict(p, "Bash", { command }), command).toBe(
        "ask: a permissions.ask rule asks for it each time",
      );
    expect(verdict(p, "Bash", { command: "git status && echo ok" })).toBe("allowed");
  });

  it("a Read ask rule makes the searching tools ask too: their answers could show what it guards", () => {
    const p = policy({
      preApproved: list("Read(//etc/**), Grep, Glob, LS"),
      ...asking("Read(//etc/passwd)"),
    });
    expect(verdict(p, "Read", { file_path: "/etc/hosts" })).toBe("allowed");
    expect(verdict(p, "Read", { file_path: "/etc/passwd" })).toBe(
      "ask: a permissions.ask rule asks for it each time",
    );
    for (const tool of ["Grep", "Glob", "LS"])
      expect(verdict(p, tool, { pattern: "root", path: "/etc" }), tool).toBe(
        "ask: a permissions.ask rule asks for it each time",
      );
  });
});
