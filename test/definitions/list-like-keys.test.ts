import { describe, expect } from "vitest";
import { loadProject } from "../../src/index.js";
import { it } from "../support/fixture.js";
import { brief } from "../support/fixtures.js";

/** Where each surface's file is, and the frontmatter it needs besides the key under test. */
const SURFACES = [
  ["agent.md", "agent.md", "name: main\ndescription: d\n"],
  ["a subagent", "agents/a.md", "name: a\ndescription: d\n"],
  ["a skill", "skills/s/SKILL.md", "name: s\ndescription: d\n"],
  ["a command", "commands/c.md", "description: d\n"],
] as const;

describe("an unknown key whose name speaks of a tool list or permissions is an error", () => {
  const KEYS: [yaml: string, meant: string][] = [
    ["deny: Bash", "'disallowed-tools'"],
    ["denied: [Bash]", "'disallowed-tools'"],
    ["disallowed: Bash", "'disallowed-tools'"],
    ["disallow: Bash", "'disallowed-tools'"],
    ["exclude-tools: Bash", "'disallowed-tools'"],
    ["excludeTools: Bash", "'disallowed-tools'"],
    ["block: Bash", "'disallowed-tools'"],
    ["blocked_commands: [rm]", "'disallowed-tools'"],
    ["tools-deny: Bash", "'disallowed-tools'"],
    ["allow: Read", "'allowed-tools'"],
    ["allowed: Read", "'allowed-tools'"],
    ["Allow_List: Read", "'allowed-tools'"],
    ["permissions:\n  deny: [Bash]", "'disallowed-tools' (a 'permissions' block"],
    ["permissions:\n  allow: [Read]", "'allowed-tools' (a 'permissions' block"],
    ["permissions:\n  allow: [Read]\n  deny: [Bash]", "'disallowed-tools' and 'allowed-tools'"],
    ["permission: read-only", "'allowed-tools' or 'disallowed-tools'"],
    ["mcp-tools: [a]", "'tools' (or"],
    ["toolset: Read", "'tools' (or"],
    ["ToolsList: Read", "'tools' (or"],
  ];
  for (const [label, file, base] of SURFACES) {
    it.for(KEYS)(`in ${label}: %s`, ([yaml, meant], { project }) => {
      const root = project({ [file]: `---\n${base}${yaml}\n---\nbody\n` });
      const r = loadProject(root);
      const line = base.split("\n").length + 1;
      expect(r.diagnostics.map((d) => brief(d, root))).toEqual([
        `${file}:${line}:1 error misspelled-list-key`,
      ]);
      expect(r.diagnostics[0]?.message).toContain(`did you mean ${meant}`);
      expect(r.definitions).toEqual([]);
    });
  }
});

describe("other unknown keys stay warnings, and the file loads", () => {
  it.for<[string, string]>([
    ["colour: blue", "warning unknown-key"],
    ["x-ro: Read, Grep", "warning unknown-key"],
    // A real collection's key for a command's tools: Claude Code ignores it too.
    ["tool_access: [Read, Write]", "warning unknown-key"],
    ["descripion: d2", "warning unknown-key"],
    // A key another tool defines, which agentmd does not act on, is accepted with an info.
    ["color: blue", "info foreign-key"],
  ])("%s", ([yaml, expected], { project }) => {
    const root = project({ "agents/a.md": `---\nname: a\ndescription: d\n${yaml}\n---\nbody\n` });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => brief(d, root))).toEqual([`agents/a.md:4:1 ${expected}`]);
    expect(r.definitions.map((d) => d.name)).toEqual(["a"]);
  });

  it("keeps the errors for other words for the lists", ({ project }) => {
    const root = project({
      "agents/a.md": "---\nname: a\ndescription: d\ndenied-tools: Bash\n---\nb\n",
      "agents/b.md": "---\nname: b\ndescription: d\nblocked-tools: Bash\n---\nb\n",
      "agents/c.md": "---\nname: c\ndescription: d\nexcludedTools: Bash\n---\nb\n",
    });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => brief(d, root))).toEqual([
      "agents/a.md:4:1 error misspelled-list-key",
      "agents/b.md:4:1 error misspelled-list-key",
      "agents/c.md:4:1 error misspelled-list-key",
    ]);
    expect(r.definitions).toEqual([]);
  });
});
