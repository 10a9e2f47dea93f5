import { describe, expect } from "vitest";
import { test } from "../support/fixture.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * A user's attacks on #41 through the built CLI: a hop whose list omits a server reads none of its
 * resources and runs none of its prompts; a mention of a server outside the list is not expanded.
 */
function project(dir: string, main: string, helper: string) {
  writeFiles(dir, {
    "skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidies.\n---\nTidy up.\n",
    ".mcp.json": mcpJson({ docs: stdioServer("extras"), other: stdioServer("extras") }),
    "agent.md": `---\nallowed-tools: ${main}\n---\nMain.\n`,
    "agents/helper.md": `---\nname: helper\ndescription: Helps.\ntools: ${helper}\n---\nHelp.\n`,
  });
  trustProject(dir);
}

const task = { subagent_type: "helper", description: "read", prompt: "read the guide" };

describe("a hop whose list omits a server", () => {
  test("reads none of its resources", async ({ dir, fake, cli }) => {
    project(
      dir,
      "mcp__docs, ListMcpResourcesTool, ReadMcpResourceTool, Task",
      "ListMcpResourcesTool, ReadMcpResourceTool",
    );
    fake.push(
      call("Task", task),
      call("ReadMcpResourceTool", { server: "docs", uri: "docs://guide" }),
      call("ListMcpResourcesTool", {}),
      text("helper done"),
      text("main done"),
    );
    const r = await cli(["run", "go"]);
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(fake.requests.map((q) => q.body.messages));
    expect(sent).not.toContain("GUIDE: tabs");
    expect(sent).not.toContain('docs://guide\\",\\"name');
    expect(toolsOf(fake, 1)).not.toContain("ReadMcpResourceTool");
    expect(resultText(resultsSent(fake, 2)[0])).toBe(
      "ReadMcpResourceTool is not allowed in this run. The tool was not executed.",
    );
    expect(resultText(resultsSent(fake, 3)[0])).toBe(
      "ListMcpResourcesTool is not allowed in this run. The tool was not executed.",
    );
  });

  test("runs none of its prompts through Skill", async ({ dir, fake, cli }) => {
    project(dir, "mcp__docs, Skill, Task", "Skill");
    fake.push(
      call("Skill", { skill: "mcp__docs__review", args: "y.ts" }),
      call("Task", task),
      call("Skill", { skill: "mcp__docs__review", args: "x.ts" }),
      text("helper done"),
      text("main done"),
    );
    const r = await cli(["run", "go"]);
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(fake.requests.map((q) => q.body.messages));
    expect(sent).not.toContain("Review x.ts closely");
    // Neither the main agent nor the helper runs a server's prompt as a skill: prompts are typed.
    expect(resultText(resultsSent(fake, 1)[0])).toBe(
      "there is no skill named 'mcp__docs__review'; loaded: tidy.",
    );
    expect(toolsOf(fake, 2)).toEqual(["Skill"]);
    expect(resultText(resultsSent(fake, 3)[0])).toBe(
      "there is no skill named 'mcp__docs__review'; loaded: tidy.",
    );
  });
});

describe("@server:uri of a server outside the list", () => {
  test("is not expanded: the run does not start, and says why", async ({ dir, fake, cli }) => {
    project(dir, "mcp__docs, ReadMcpResourceTool", "Read");
    fake.push(text("ok"));
    const r = await cli(["run", "follow @other:docs://guide"]);
    const said = r.stdout + r.stderr;
    expect(r.code).toBe(1);
    expect(said).toContain(
      "the prompt: @other:docs://guide was not attached: no MCP server named 'other' is readable in this run (readable: docs)",
    );
    expect(fake.requests).toHaveLength(0);
  });
});
