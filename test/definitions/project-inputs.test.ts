import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryFolders, projectInputs } from "../../src/definitions/project-inputs.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const listed = (root: string, options?: Parameters<typeof projectInputs>[1]) =>
  projectInputs(root, options).map((i) => `${i.scope} ${i.kind} ${path.relative(dir, i.file)}`);

describe("projectInputs: the one list of what a project is made of", () => {
  it("names every input a run reads, and nothing else in the folder", () => {
    writeFiles(dir, {
      "project/agent.md": "a",
      "project/agents/r.md": "r",
      "project/skills/notes/SKILL.md": "s",
      "project/skills/notes/template.md": "t",
      "project/commands/git/commit.md": "c",
      "project/.claude/commands/x.md": "x",
      "project/tools/echo.ts": "e",
      "project/tools/lib/helper.ts": "h",
      "project/tools/node_modules/dep/index.js": "n",
      "project/.claude/settings.json": "{}",
      "project/.claude/settings.local.json": "{}",
      "project/.mcp.json": "{}",
      "project/CLAUDE.md": "m",
      "project/.claude/CLAUDE.md": "m",
      "project/CLAUDE.local.md": "m",
      "project/sub/CLAUDE.md": "m",
      "project/src/app.ts": "not an input",
      "project/README.md": "not an input",
      "home/.claude/settings.json": "{}",
      "home/.claude/CLAUDE.md": "u",
      "home/.claude/agents/mine.md": "u",
    });
    expect(
      listed(path.join(dir, "project"), {
        userDir: path.join(dir, "home/.claude"),
        cwd: path.join(dir, "project/sub"),
      }),
    ).toEqual([
      "project main project/agent.md",
      "project definitions project/agents/r.md",
      "project definitions project/skills/notes/SKILL.md",
      "project definitions project/skills/notes/template.md",
      "project definitions project/commands/git/commit.md",
      "project definitions project/.claude/commands/x.md",
      "project tools project/tools/echo.ts",
      "project tools project/tools/lib/helper.ts",
      "project settings project/.claude/settings.json",
      "project settings project/.claude/settings.local.json",
      "project mcp project/.mcp.json",
      "project memory project/CLAUDE.md",
      "project memory project/.claude/CLAUDE.md",
      "project memory project/CLAUDE.local.md",
      "project memory project/sub/CLAUDE.md",
      "user settings home/.claude/settings.json",
      "user memory home/.claude/CLAUDE.md",
      "user definitions home/.claude/agents/mine.md",
    ]);
  });

  it("follows a symlinked folder inside the project, as discovery does, and not one outside it", () => {
    writeFiles(dir, { "project/shared/r.md": "r", "outside/o.md": "o" });
    mkdirSync(path.join(dir, "project/agents"));
    symlinkSync(path.join(dir, "project/shared"), path.join(dir, "project/agents/shared"));
    symlinkSync(path.join(dir, "outside"), path.join(dir, "project/agents/outside"));
    expect(listed(path.join(dir, "project"))).toEqual(["project definitions project/agents/shared/r.md"]);
  });

  it("reads memory from the project down to the working folder, and only the project's outside it", () => {
    expect(memoryFolders("/p", "/p/a/b")).toEqual(["/p", "/p/a", "/p/a/b"]);
    expect(memoryFolders("/p", "/p")).toEqual(["/p"]);
    expect(memoryFolders("/p", "/elsewhere")).toEqual(["/p"]);
    expect(memoryFolders("/", "/a")).toEqual(["/", "/a"]);
  });
});
