import { describe, expect } from "vitest";
import { loadProject } from "../../src/index.js";
import { it } from "../support/fixture.js";
import { brief } from "../support/fixtures.js";

const FILES = [
  ["agent.md", "agent.md", "name: main\ndescription: d\n"],
  ["a subagent", "agents/a.md", "name: a\ndescription: d\n"],
  ["a skill", "skills/s/SKILL.md", "name: s\ndescription: d\n"],
] as const;

describe("hooks in frontmatter are checked as settings' hooks are", () => {
  const CASES: [what: string, yaml: string, expected: string, message: string][] = [
    [
      "an event that is a map",
      "  PreToolUse:\n    matcher: Bash\n    command: exit 2",
      "6:5 error hook-shape",
      "'hooks.PreToolUse' must be a list",
    ],
    [
      "a misspelled command",
      "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          comand: exit 2",
      "9:19 error hook-key",
      "did you mean 'command'?",
    ],
    [
      "a misspelled hooks",
      "  PreToolUse:\n    - matcher: Bash\n      hook:\n        - command: exit 2",
      "8:9 error hook-key",
      "did you mean 'hooks'?",
    ],
    [
      "a misspelled matcher",
      "  PreToolUse:\n    - matchr: Bash\n      command: exit 2",
      "6:15 error hook-key",
      "did you mean 'matcher'?",
    ],
    [
      "a command hook without its command",
      "  PreToolUse:\n    - hooks:\n        - type: command",
      "7:11 error hook-shape",
      "a command hook needs 'command'",
    ],
  ];
  for (const [label, file, base] of FILES) {
    it.for(CASES)(`in ${label}: %s`, ([, yaml, expected, message], { project }) => {
      const root = project({ [file]: `---\n${base}hooks:\n${yaml}\n---\nbody\n` });
      const r = loadProject(root);
      expect(r.diagnostics.map((d) => brief(d, root))).toEqual([`${file}:${expected}`]);
      expect(r.diagnostics[0]?.message).toContain(message);
      expect(r.definitions).toEqual([]);
    });
  }

  it("a hook of another type is a warning, and is not run", ({ project }) => {
    const root = project({
      "agents/a.md":
        "---\nname: a\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: prompt\n          prompt: is it safe?\n        - type: command\n          command: ./guard.sh\n---\nbody\n",
    });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => `${brief(d, root)}: ${d.message}`)).toEqual([
      "agents/a.md:8:11 warning hook-type-not-run: a 'prompt' hook is not run by agentmd (it runs command hooks only); it is ignored",
    ]);
    const d = r.definitions[0];
    expect(d?.surface === "agent" && d.hooks).toEqual({
      PreToolUse: [{ matcher: "Bash", command: "./guard.sh", origin: "agent:a" }],
    });
  });
});
