import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { scriptsNamed } from "../../src/trust/hook-scripts.js";
import { repositoryCode } from "../../src/trust/repository-code.js";
import { test } from "../support/fixture.js";
import { mcpJson } from "../support/mcp.js";

const it = test;
const hook = (command: string, matcher = "Bash") => ({
  PreToolUse: [{ matcher, hooks: [{ type: "command", command }] }],
});
const texts = (dir: string, home = path.join(dir, "home")) =>
  repositoryCode(dir, home).items.map((i) => i.text);

describe("repositoryCode: what of a project's files is code agentmd would run", () => {
  it("lists each kind, from every file that holds it, and nothing of a markdown-only project", ({
    project,
  }) => {
    const dir = project({
      "agent.md":
        "---\nbaseUrl: https://proxy.example\nhooks:\n  PostToolUse:\n    - matcher: Write\n      command: ./fmt.sh\nmcpServers:\n  - inl:\n      command: node\n      args: [inl.mjs]\n---\nMain.\n",
      "fmt.sh": "echo fmt\n",
      "agents/r.md":
        "---\nname: r\ndescription: R\nhooks:\n  PreToolUse:\n    - matcher: Read\n      command: echo sub\n---\nR.\n",
      "skills/s/SKILL.md":
        "---\nname: s\ndescription: S\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: echo skill\n---\nS.\n",
      ".mcp.json": mcpJson({
        web: { type: "http", url: "https://mcp.example/x", headers: { Authorization: "secret-value" } },
      }),
      ".claude/settings.json": JSON.stringify({
        env: { API_HOST: "secret-host" },
        hooks: hook("echo settings"),
      }),
      ".claude/settings.local.json": JSON.stringify({ hooks: hook("echo local", "Edit") }),
      "tools/t.mjs": "export default 1;\n",
      "tools/lib/helper.js": "export const x = 1;\n",
      "tools/README.md": "not code\n",
    });
    const listed = texts(dir);
    expect(listed).toEqual(
      expect.arrayContaining([
        "baseUrl https://proxy.example",
        "hook PostToolUse (Write): ./fmt.sh  — agent.md",
        "script fmt.sh (run by a hook)",
        "MCP server 'inl': node inl.mjs  — agent.md",
        "hook PreToolUse (Read): echo sub  — agents/r.md",
        "hook PreToolUse (Bash): echo skill  — skills/s/SKILL.md",
        "MCP server 'web': https://mcp.example/x (headers: Authorization)  — .mcp.json",
        "settings env API_HOST  — .claude/settings.json",
        "hook PreToolUse (Bash): echo settings  — .claude/settings.json",
        "hook PreToolUse (Edit): echo local  — .claude/settings.local.json",
        "custom tool module tools/t.mjs",
        `file beside the tool modules ${path.join("tools", "lib", "helper.js")}`,
      ]),
    );
    expect(listed).toHaveLength(12);
    expect(listed.join("\n")).not.toContain("secret");
  });

  it("a project of markdown and lists has none; tools/ without a module is not code", ({ project }) => {
    const dir = project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Read"] } }),
      "tools/README.md": "about tools\n",
      "CLAUDE.md": "be kind\n",
    });
    expect(repositoryCode(dir, path.join(dir, "home")).items).toEqual([]);
  });

  it("the user's own files are theirs, never the project's code", ({ project, dir }) => {
    const home = path.join(dir, "home");
    project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      "home/.claude/settings.json": JSON.stringify({ env: { MINE: "1" }, hooks: hook("echo mine") }),
      "home/.claude/agents/u.md":
        "---\nname: u\ndescription: U\nhooks:\n  PreToolUse:\n    - matcher: Read\n      command: echo u\n---\nU.\n",
    });
    expect(repositoryCode(dir, home).items).toEqual([]);
    // The home folder as the project: its .claude is the user's.
    expect(repositoryCode(home, home).items).toEqual([]);
  });

  it("the digest changes when any piece changes, and only then", ({ project }) => {
    const dir = project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      ".claude/hooks/g.sh": "exit 0\n",
      ".claude/settings.json": JSON.stringify({
        env: { A: "1" },
        hooks: hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh'),
      }),
      "tools/t.mjs": "export default 1;\n",
    });
    const home = path.join(dir, "home");
    const first = repositoryCode(dir, home).digest;
    expect(repositoryCode(dir, home).digest).toBe(first);
    writeFileSync(path.join(dir, "agent.md"), "---\nallowed-tools: Read, Grep\n---\nOther words.\n");
    writeFileSync(path.join(dir, "CLAUDE.md"), "memory is not code\n");
    expect(repositoryCode(dir, home).digest).toBe(first);
    const edits: [string, string][] = [
      [".claude/hooks/g.sh", "exit 1\n"],
      ["tools/t.mjs", "export default 2;\n"],
      [
        ".claude/settings.json",
        JSON.stringify({ env: { A: "2" }, hooks: hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh') }),
      ],
    ];
    const seen = new Set([first]);
    for (const [file, content] of edits) {
      writeFileSync(path.join(dir, file), content);
      const now = repositoryCode(dir, home).digest;
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    }
  });

  it("property: any change to a hook script's bytes changes the digest", ({ project }) => {
    const dir = project({ ".claude/settings.json": JSON.stringify({ hooks: hook("bash scripts/x.sh") }) });
    const home = path.join(dir, "home");
    mkdirSync(path.join(dir, "scripts"));
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        (a, extra) => {
          writeFileSync(path.join(dir, "scripts/x.sh"), a);
          const before = repositoryCode(dir, home).digest;
          writeFileSync(path.join(dir, "scripts/x.sh"), Buffer.concat([a, extra]));
          return repositoryCode(dir, home).digest !== before;
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("scriptsNamed: the files inside the project a hook command names", () => {
  const cases: [string, string[]][] = [
    [".claude/hooks/guard.sh", [".claude/hooks/guard.sh"]],
    ["bash ./scripts/x.sh --flag", ["scripts/x.sh"]],
    ['"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', [".claude/hooks/guard.sh"]],
    ["${CLAUDE_PROJECT_DIR}/scripts/x.sh", ["scripts/x.sh"]],
    ["node scripts/x.sh;bash .claude/hooks/guard.sh", [".claude/hooks/guard.sh", "scripts/x.sh"]],
    ["FOO=1 scripts/x.sh | cat", ["scripts/x.sh"]],
    ["bash ../outside.sh", []],
    ["bash /etc/hostname", []],
    ["bash $HOME/x.sh ~/y.sh", []],
    ["echo scripts", []],
    ["exit 2", []],
  ];
  it.for(cases)("%s → %j", ([command, expected], { project }) => {
    const dir = project({
      ".claude/hooks/guard.sh": "exit 0\n",
      "scripts/x.sh": "exit 0\n",
      "../outside.sh": "exit 0\n",
    });
    expect(scriptsNamed(command, dir).map((f) => path.relative(dir, f))).toEqual(expected);
  });

  it("a link inside the project to a file outside is followed: its content is the hook's", ({
    project,
    dir,
  }) => {
    project({ "../target.sh": "exit 0\n" });
    symlinkSync(path.join(dir, "../target.sh"), path.join(dir, "link.sh"));
    expect(scriptsNamed("./link.sh", dir)).toEqual([path.join(dir, "link.sh")]);
  });
});
