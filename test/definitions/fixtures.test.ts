import { describe, expect, it } from "vitest";
import type { Definition } from "../../src/definitions/types.js";
import { loadProject } from "../../src/index.js";
import { brief, fixture } from "../support/fixtures.js";

/** Each fixture folder is one failure mode; the table lists every diagnostic it must produce. */
const CASES: [name: string, diagnostics: string[]][] = [
  ["unquoted-colon", ["agents/gdpr.md:3:1 warning yaml-recovered"]],
  ["argument-hint-flow-then-text", ["commands/deploy.md:3:1 warning yaml-recovered"]],
  ["argument-hint-list", ["commands/review-pr.md:3:16 warning collection-as-text"]],
  ["tools-star", ["agents/anything.md:4:1 warning yaml-recovered"]],
  ["crlf", ["agents/crlf-agent.md:5:1 warning unknown-key"]],
  ["blank-lines", []],
  ["no-frontmatter", ["agents/notes.md:1:1 info documentation"]],
  ["readme-in-agents", ["agents/README.md:1:1 info documentation"]],
  [
    "frontmatter-deep-in-body",
    ["agents/later.md:1:1 info documentation", "agents/later.md:2:1 warning frontmatter-not-at-top"],
  ],
  [
    "template-values",
    [
      "agents/template.md:2:7 error template-placeholder",
      "agents/template.md:3:14 error template-placeholder",
    ],
  ],
  ["name-folder-mismatch", ["skills/pdf-tools/SKILL.md:2:1 warning skill-name-folder"]],
  ["duplicate-names", ["agents/nested/b.md:1:1 warning duplicate-name"]],
  ["nested-command-names", []],
  ["colon-in-command-file-name", ["commands/svelte/svelte:test.md:1:1 warning colon-in-file-name"]],
  [
    "misspelled-list-keys",
    [
      "agents/AllowedTools.md:4:1 error misspelled-list-key",
      "agents/allowed-tool.md:4:1 error misspelled-list-key",
      "agents/allowedTools.md:4:1 error misspelled-list-key",
      "agents/allowed_tools.md:4:1 error misspelled-list-key",
      "agents/alowed-tools.md:4:1 error misspelled-list-key",
      "commands/deny.md:3:1 error misspelled-list-key",
    ],
  ],
  ["tools-and-allowed-tools", ["agents/both.md:4:1 error duplicate-list-key"]],
  [
    "unknown-and-foreign-keys",
    [
      "agents/keys.md:4:1 warning unknown-key",
      "agents/keys.md:5:1 info foreign-key",
      "agents/keys.md:6:1 warning key-not-for-surface",
    ],
  ],
  [
    "tool-names",
    [
      "agents/names.md:4:8 warning tool-name-case",
      "agents/names.md:4:14 warning unknown-tool",
      "agents/names.md:4:20 warning tool-not-provided",
      "agents/names.md:4:57 error tool-entry-syntax",
    ],
  ],
  ["tool-list-forms", []],
  [
    "scalar-coercion",
    ["agents/numbers.md:2:7 warning coerced-to-string", "agents/numbers.md:3:14 warning coerced-to-string"],
  ],
  ["skill-name-rule", ["skills/Bad_Name/SKILL.md:2:7 warning skill-name"]],
  [
    "missing-required",
    ["agents/nameless.md:1:1 error missing-key", "skills/empty-skill/SKILL.md:1:1 error missing-frontmatter"],
  ],
  ["unclosed-frontmatter", ["agents/open.md:1:1 error unclosed-frontmatter"]],
  ["yaml-unrecoverable", ["agents/broken.md:4:12 error yaml-syntax"]],
  ["dollar-zero", ["commands/script.md:4:22 warning dollar-zero"]],
  ["main-agent", []],
  [
    "main-agent-bad-values",
    ["agent.md:2:16 error value-type", "agent.md:3:19 error value-type", "agent.md:5:3 error unknown-key"],
  ],
  ["claude-layout", []],
  ["skill-shadows-command", ["commands/deploy.md:1:1 warning command-shadowed-by-skill"]],
];

function byName(defs: readonly Definition[], name: string): Definition {
  const d = defs.find((x) => x.name === name);
  if (!d) throw new Error(`no definition named ${name}; have ${defs.map((x) => x.name).join(", ")}`);
  return d;
}

describe("loader fixtures: one folder per failure mode", () => {
  it.each(CASES)("%s", (name, expected) => {
    const root = fixture(name);
    const result = loadProject(root);
    expect(result.diagnostics.map((d) => brief(d, root))).toEqual(expected);
    const failed = result.files.filter((f) => f.outcome === "failed").length;
    expect(failed > 0).toBe(expected.some((e) => e.includes(" error ")));
  });
});

describe("what the fixtures load to", () => {
  it("takes a value with ': ' whole, including its continuation line", () => {
    const d = byName(loadProject(fixture("unquoted-colon")).definitions, "gdpr");
    expect(d.description).toBe(
      "Use when the user asks about privacy. Triggers on: 'GDPR', 'CCPA' and data subject rights.",
    );
    expect(d.allowedTools?.entries.map((e) => e.name)).toEqual(["Read", "Grep"]);
  });

  it("keeps argument hints as written", () => {
    const a = loadProject(fixture("argument-hint-flow-then-text")).definitions[0];
    const b = loadProject(fixture("argument-hint-list")).definitions[0];
    expect(a?.surface === "command" && a.argumentHint).toBe("[service] | --all");
    expect(b?.surface === "command" && b.argumentHint).toBe("[pr-number]");
  });

  it("reads `tools: *` as every tool", () => {
    const d = byName(loadProject(fixture("tools-star")).definitions, "anything");
    expect(d.allowedTools?.entries.map((e) => e.raw)).toEqual(["*"]);
  });

  it("reads CRLF files with LF positions and bodies", () => {
    const d = byName(loadProject(fixture("crlf")).definitions, "crlf-agent");
    expect(d.allowedTools?.entries.map((e) => [e.name, e.pattern, e.at.line, e.at.column])).toEqual([
      ["Read", undefined, 4, 8],
      ["Bash", "git:*", 4, 14],
    ]);
    expect(d.body.trim()).toBe("Body line one.");
    expect(d.bodyLine).toBe(7);
  });

  it("parses every list form into the same entries", () => {
    const defs = loadProject(fixture("tool-list-forms")).definitions;
    expect(byName(defs, "flow").allowedTools?.entries.map((e) => e.raw)).toEqual([
      "Read",
      "Grep",
      "Bash(git diff:*)",
    ]);
    expect(byName(defs, "spaces").allowedTools?.entries.map((e) => e.raw)).toEqual([
      "Read",
      "Grep",
      "Bash(git add:*)",
      "Bash(git diff:*)",
    ]);
    expect(byName(defs, "commas").allowedTools?.entries.map((e) => e.raw)).toEqual([
      "Read",
      "Grep",
      "Bash(npm run test:*)",
      "Task(reviewer)",
    ]);
    const flow = byName(defs, "flow").allowedTools?.entries[2];
    expect([flow?.at.line, flow?.at.column]).toEqual([4, 26]);
  });

  it("names commands by path, without repeating a namespace already in the file name", () => {
    const nested = loadProject(fixture("nested-command-names"))
      .definitions.map((d) => d.name)
      .sort();
    expect(nested).toEqual(["git:commit", "tools:db:migrate"]);
    expect(loadProject(fixture("colon-in-command-file-name")).definitions.map((d) => d.name)).toEqual([
      "svelte:test",
    ]);
  });

  it("treats a command without frontmatter as all body, its first line the description", () => {
    const defs = loadProject(fixture("no-frontmatter")).definitions;
    expect(defs.map((d) => [d.surface, d.name, d.description])).toEqual([["command", "hello", "Say hello"]]);
  });

  it("keeps the first of two same-named definitions and names it in the warning", () => {
    const r = loadProject(fixture("duplicate-names"));
    expect(r.definitions.map((d) => d.file.endsWith("agents/a.md"))).toEqual([true]);
    expect(r.diagnostics[0]?.message).toContain("agents/a.md");
    expect(r.files.map((f) => f.outcome)).toEqual(["loaded", "shadowed"]);
  });

  it("loads a skill whose name breaks the Agent Skills rule, or has none, under its folder's name", () => {
    const r = loadProject(fixture("skill-name-rule"));
    expect(r.definitions.map((d) => [d.surface, d.name])).toEqual([["skill", "Bad_Name"]]);
    expect(r.diagnostics[0]?.message).toBe(
      "skill name 'Bad_Name' breaks the Agent Skills rule (lowercase letters, digits and single hyphens, at most 64 characters), so it is named by its folder: 'Bad_Name'",
    );
  });

  it("reads the main agent's runner settings", () => {
    const d = loadProject(fixture("main-agent")).definitions[0];
    expect(d?.surface).toBe("main");
    if (d?.surface !== "main") return;
    expect(d.name).toBe("main-agent");
    expect(d.maxIterations).toBe(10);
    expect(d.schemaValidation).toBe("warn");
    expect(d.toolConcurrency).toEqual({ maxConcurrency: 4, perBatchMax: 2 });
    expect(d.hooks).toEqual({ PreToolUse: [{ matcher: "Bash", command: "./check.sh", origin: "agent.md" }] });
    expect(d.disallowedTools?.entries.map((e) => [e.name, e.pattern])).toEqual([["Bash", "git push:*"]]);
  });

  it("loads a Claude Code project's .claude folder", () => {
    const defs = loadProject(fixture("claude-layout")).definitions;
    expect(defs.map((d) => `${d.surface}:${d.name}`).sort()).toEqual([
      "agent:cc",
      "command:hi",
      "skill:cc-skill",
    ]);
  });

  it("folds a case-only tool name into the built-in", () => {
    const r = loadProject(fixture("blank-lines"));
    expect(byName(r.definitions, "spaced").allowedTools?.entries.map((e) => e.name)).toEqual([
      "Read",
      "Grep",
    ]);
  });

  it("loads the repository's own example project without a diagnostic", () => {
    const r = loadProject(fixture("../../.."));
    expect(r.diagnostics).toEqual([]);
    expect(r.definitions.map((d) => `${d.surface}:${d.name}`).sort()).toEqual([
      "agent:reviewer",
      "command:explain",
      "command:tour",
      "main:repo-guide",
      "skill:release-notes",
    ]);
  });
});
