import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectVersion } from "../../src/batch/project-version.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\n---\nx\n",
    "agents/r.md": "---\nname: r\ndescription: d\n---\ny\n",
    "skills/notes/SKILL.md": "---\nname: notes\ndescription: d\n---\nz\n",
    "skills/notes/template.md": "t\n",
    "commands/git/commit.md": "c\n",
    ".claude/agents/c.md": "---\nname: c\ndescription: d\n---\nw\n",
    "src/app.ts": "not a definition",
  });
});
afterEach(() => cleanup());

describe("projectVersion", () => {
  it("is the same for the same definitions anywhere, whatever else changes", () => {
    const v = projectVersion(dir);
    expect(v).toMatch(/^sha256:[0-9a-f]{16}$/);
    const { dir: other, cleanup: done } = tempDir();
    try {
      writeFiles(other, {
        "agent.md": "---\r\nallowed-tools: Read\r\n---\r\nx\r\n",
        "agents/r.md": "---\nname: r\ndescription: d\n---\ny\n",
        "skills/notes/SKILL.md": "---\nname: notes\ndescription: d\n---\nz\n",
        "skills/notes/template.md": "t\n",
        "commands/git/commit.md": "c\n",
        ".claude/agents/c.md": "---\nname: c\ndescription: d\n---\nw\n",
      });
      expect(projectVersion(other)).toBe(v);
    } finally {
      done();
    }
    writeFileSync(path.join(dir, "src/app.ts"), "changed");
    writeFiles(dir, { ".agentmd/sessions/s.jsonl": "{}\n", "README.md": "r" });
    expect(projectVersion(dir)).toBe(v);
  });

  it.each([
    ["agent.md", "---\nallowed-tools: Read, Bash\n---\nx\n"],
    ["skills/notes/template.md", "t2\n"],
    ["commands/new.md", "n\n"],
    [".claude/agents/c.md", "changed\n"],
    [".claude/settings.json", '{"permissions":{"deny":["Bash"]}}'],
    [".claude/settings.local.json", '{"permissions":{"deny":["Bash"]}}'],
    [".mcp.json", '{"mcpServers":{}}'],
    ["tools/echo.ts", "export {};\n"],
    ["tools/lib/helper.ts", "export const x = 1;\n"],
    ["CLAUDE.md", "Be kind.\n"],
    ["CLAUDE.local.md", "Be kind.\n"],
    [".claude/CLAUDE.md", "Be kind.\n"],
    ["AGENTS.md", "Be kind.\n"],
  ])("changes when %s changes", (file, content) => {
    const v = projectVersion(dir);
    writeFiles(dir, { [file]: content });
    expect(projectVersion(dir)).not.toBe(v);
  });

  it.each([
    ["a hook's script outside .claude/", "scripts/guard.sh", "exit 1\n"],
    ["a file the hook's script sources", "hooks/lib.sh", "touch x\n"],
    ["the MCP server's program", "server.mjs", "process.exit(1);\n"],
    ["a module the MCP server's program imports", "lib/db.mjs", "export const db = 2;\n"],
    ["the package script a hook runs", "package.json", '{"scripts":{"check":"sh other.sh"}}'],
  ])("changes when %s changes (the inventory's files count)", (_, file, content) => {
    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: ["sh scripts/guard.sh", "npm run check"].map((command) => ({
                type: "command",
                command,
              })),
            },
          ],
        },
      }),
      "scripts/guard.sh": ". hooks/lib.sh\n",
      "hooks/lib.sh": "true\n",
      ".mcp.json": JSON.stringify({ mcpServers: { s: { command: "node", args: ["server.mjs"] } } }),
      "server.mjs": 'import "./lib/db.mjs";\n',
      "lib/db.mjs": "export const db = 1;\n",
      "package.json": JSON.stringify({ scripts: { check: "true" } }),
    });
    const v = projectVersion(dir);
    writeFiles(dir, { [file]: content });
    expect(projectVersion(dir)).not.toBe(v);
  });

  it("changes when a file moves or goes", () => {
    const v = projectVersion(dir);
    rmSync(path.join(dir, "commands/git/commit.md"));
    const gone = projectVersion(dir);
    expect(gone).not.toBe(v);
    writeFiles(dir, { "commands/commit.md": "c\n" });
    expect(projectVersion(dir)).not.toBe(gone);
    expect(projectVersion(dir)).not.toBe(v);
  });

  it("counts the memory files of the folders down to a job's working folder, for that job", () => {
    writeFiles(dir, { "repos/a/CLAUDE.md": "a\n" });
    const atRoot = projectVersion(dir);
    const inA = projectVersion(dir, "repos/a");
    expect(inA).not.toBe(atRoot);
    writeFiles(dir, { "repos/a/CLAUDE.md": "a2\n" });
    expect(projectVersion(dir)).toBe(atRoot);
    expect(projectVersion(dir, "repos/a")).not.toBe(inA);
  });
});
