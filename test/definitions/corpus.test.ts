import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../src/definitions/types.js";
import { loadPaths } from "../../src/index.js";
import { brief, REPO_ROOT } from "../support/fixtures.js";

const SHARED_CORPUS = path.resolve(REPO_ROOT, "../shared/corpus");
const SAMPLE = path.join(REPO_ROOT, "test/fixtures/corpus-sample");
const hasCorpus = existsSync(SHARED_CORPUS);

if (!hasCorpus) {
  console.warn(
    `corpus test skipped: ${SHARED_CORPUS} does not exist (it sits beside the checkout in CI only)`,
  );
}

/** Every definition file is loaded, taken as documentation, or carries an error diagnostic. */
function expectHonestOutcomes(result: LoadResult): void {
  const errorsByFile = new Set(result.diagnostics.filter((d) => d.severity === "error").map((d) => d.file));
  for (const f of result.files) {
    if (f.outcome === "failed") expect(errorsByFile.has(f.file), f.file).toBe(true);
    if (f.outcome === "loaded")
      expect(
        result.definitions.some((d) => d.file === f.file),
        f.file,
      ).toBe(true);
  }
  for (const d of result.diagnostics) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.column).toBeGreaterThanOrEqual(1);
  }
}

function tally(result: LoadResult) {
  const outcome = (s: string, o: string) =>
    result.files.filter((f) => f.surface === s && f.outcome === o).length;
  const severity = (s: string) => result.diagnostics.filter((d) => d.severity === s).length;
  return {
    files: result.files.length,
    agents: [
      outcome("agent", "loaded"),
      outcome("agent", "failed"),
      outcome("agent", "documentation"),
      outcome("agent", "shadowed"),
    ],
    skills: [outcome("skill", "loaded"), outcome("skill", "failed")],
    commands: [
      outcome("command", "loaded"),
      outcome("command", "failed"),
      outcome("command", "documentation"),
    ],
    severities: [severity("error"), severity("warning"), severity("info")],
  };
}

describe("the public corpus", () => {
  // Counts are asserted so that a change in what the loader accepts is seen and made deliberately.
  it.runIf(hasCorpus)("loads every file of ../shared/corpus without a crash, with honest outcomes", () => {
    const result = loadPaths([SHARED_CORPUS]);
    expectHonestOutcomes(result);
    expect(tally(result)).toEqual({
      files: 1130,
      agents: [471, 0, 23, 37],
      skills: [233, 0],
      commands: [350, 3, 13],
      severities: [4, 215, 118],
    });
    // The bar: no skill refused for its name, ≥ 99% of the skills and ≥ 98.5% of all definitions
    // (files that are not documentation) load. Of two same-named definitions in different folders
    // the first in path order is used and the other passed over with a warning, not refused.
    const definitions = result.files.filter((f) => f.outcome !== "documentation");
    const refused = (fs: typeof definitions) => fs.filter((f) => f.outcome === "failed").length / fs.length;
    expect(refused(definitions)).toBeLessThanOrEqual(0.015);
    expect(refused(definitions.filter((f) => f.surface === "skill"))).toBeLessThanOrEqual(0.01);
    expect(result.diagnostics.filter((d) => d.code === "skill-name" && d.severity === "error")).toEqual([]);
    const codes = new Map<string, number>();
    for (const d of result.diagnostics) codes.set(d.code, (codes.get(d.code) ?? 0) + 1);
    expect(Object.fromEntries([...codes].sort())).toMatchInlineSnapshot(`
      {
        "collection-as-text": 1,
        "colon-in-file-name": 16,
        "command-name-ignored": 5,
        "command-shadowed-by-skill": 1,
        "documentation": 36,
        "duplicate-name": 37,
        "empty-tool-list": 1,
        "foreign-key": 77,
        "invalid-tool-name": 2,
        "skill-name": 2,
        "skill-name-folder": 7,
        "template-placeholder": 3,
        "tool-list-type": 1,
        "tool-name-case": 105,
        "tool-not-provided": 7,
        "unknown-key": 2,
        "unknown-tool": 25,
        "yaml-recovered": 9,
      }
    `);
  });
});

describe("real files copied into the fixtures", () => {
  it("loads each with the diagnostics a reader would expect", () => {
    const result = loadPaths([SAMPLE]);
    expectHonestOutcomes(result);
    const lines = result.diagnostics.filter((d) => d.severity !== "info").map((d) => brief(d, SAMPLE));
    expect(lines).toMatchInlineSnapshot(`
      [
        "VoltAgent__awesome-claude-code-subagents/agents/04-quality-security/gdpr-ccpa-compliance.md:3:1 warning yaml-recovered",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:55 warning unknown-tool",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:74 warning unknown-tool",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:91 warning unknown-tool",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:110 warning unknown-tool",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:122 warning invalid-tool-name",
        "VoltAgent__awesome-claude-code-subagents/agents/09-meta-orchestration/codebase-orchestrator.md:4:147 warning invalid-tool-name",
        "anthropics__claude-plugins-official/plugins/agent-sdk-dev/commands/new-sdk-app.md:3:16 warning collection-as-text",
        "anthropics__skills/template/SKILL.md:2:1 warning skill-name-folder",
        "qdhenry__Claude-Command-Suite/.claude/commands/boundary/boundary-bbcr-fallback.md:3:5 warning tool-name-case",
        "qdhenry__Claude-Command-Suite/.claude/commands/boundary/boundary-bbcr-fallback.md:4:5 warning tool-name-case",
        "qdhenry__Claude-Command-Suite/.claude/commands/boundary/boundary-bbcr-fallback.md:5:5 warning tool-name-case",
        "qdhenry__Claude-Command-Suite/.claude/commands/boundary/boundary-bbcr-fallback.md:6:5 warning tool-name-case",
        "qdhenry__Claude-Command-Suite/.claude/commands/skills/templates/tool-restricted-skill-template.md:3:14 error template-placeholder",
        "qdhenry__Claude-Command-Suite/.claude/commands/skills/templates/tool-restricted-skill-template.md:4:16 error tool-list-type",
        "qdhenry__Claude-Command-Suite/.claude/commands/svelte/svelte:test.md:1:1 warning colon-in-file-name",
        "qdhenry__Claude-Command-Suite/.claude/skills/cloudflare-manager/SKILL.md:2:7 warning skill-name",
        "wshobson__agents/plugins/database-migrations/commands/migration-observability.md:5:1 warning unknown-key",
      ]
    `);
    const names = result.definitions.map((d) => `${d.surface}:${d.name}`).sort();
    expect(names).toMatchInlineSnapshot(`
      [
        "agent:codebase-orchestrator",
        "agent:gdpr-ccpa-compliance",
        "command:boundary:boundary-bbcr-fallback",
        "command:migration-observability",
        "command:new-sdk-app",
        "command:simulation:decision-tree-explorer",
        "command:svelte:test",
        "skill:access",
        "skill:cloudflare-manager",
        "skill:template-skill",
      ]
    `);
  });

  it("reads a YAML-list allow-list with space-prefix patterns", () => {
    const result = loadPaths([SAMPLE]);
    const access = result.definitions.find((d) => d.surface === "skill" && d.name === "access");
    expect(access?.allowedTools?.entries.map((e) => e.raw)).toEqual([
      "Read",
      "Write",
      "Bash(ls *)",
      "Bash(mkdir *)",
    ]);
  });
});
