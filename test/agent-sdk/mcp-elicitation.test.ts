import { describe, expect } from "vitest";
import { sdkQuery } from "../support/agent-sdk.js";
import { type Fixtures, test as it } from "../support/fixture.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { trustProject } from "../support/trust.js";

/** A server's question through the Agent SDK: its `onElicitation` answers, or the SDK declines. */
describe("MCP elicitation over stream-json", () => {
  /** A trusted project with the `docs` server, whose tool `ask_name` asks the user a question. */
  const docsProject = ({ dir, project }: Pick<Fixtures, "dir" | "project">) => {
    project({
      ".mcp.json": mcpJson({ docs: stdioServer("extras") }),
      "agent.md": "---\nallowed-tools: mcp__docs__*\n---\nMain.\n",
    });
    trustProject(dir);
  };

  it("goes to the program's onElicitation, whose answer the tool gets", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    docsProject({ dir, project });
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const asked: unknown[] = [];
    const run = await sdkQuery("ask", {
      cwd: dir,
      env,
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(asked).toEqual([
      expect.objectContaining({ serverName: "docs", message: "What is your name?", mode: "form" }),
    ]);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Ada"}');
  });

  it("is declined without onElicitation, and the turn goes on", async ({ dir, env, fake, project }) => {
    docsProject({ dir, project });
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const run = await sdkQuery("ask", { cwd: dir, env });
    expect(run.error, run.stderr).toBeUndefined();
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("an Elicitation hook callback answers for the program, told the server, question and form", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    docsProject({ dir, project });
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const told: unknown[] = [];
    const run = await sdkQuery("ask", {
      cwd: dir,
      env,
      hooks: {
        Elicitation: [
          {
            matcher: "docs",
            hooks: [
              async (input) => {
                told.push(input);
                return {
                  hookSpecificOutput: {
                    hookEventName: "Elicitation",
                    action: "accept",
                    content: { name: "Hook" },
                  },
                };
              },
            ],
          },
        ],
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(told).toEqual([
      expect.objectContaining({
        hook_event_name: "Elicitation",
        mcp_server_name: "docs",
        message: "What is your name?",
        requested_schema: expect.objectContaining({ required: ["name"] }),
      }),
    ]);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Hook"}');
  });

  it("an ElicitationResult hook callback turns onElicitation's accept into a decline", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    docsProject({ dir, project });
    fake.push(call("mcp__docs__ask_name", {}), text("done"));
    const told: unknown[] = [];
    const run = await sdkQuery("ask", {
      cwd: dir,
      env,
      onElicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
      hooks: {
        ElicitationResult: [
          {
            hooks: [
              async (input) => {
                told.push(input);
                return { hookSpecificOutput: { hookEventName: "ElicitationResult", action: "decline" } };
              },
            ],
          },
        ],
      },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(told).toEqual([
      expect.objectContaining({ mcp_server_name: "docs", action: "accept", content: { name: "Ada" } }),
    ]);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("the initialize answer lists the server's prompts as commands, with their arguments", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    docsProject({ dir, project });
    fake.push(text("hi"));
    let commands: unknown;
    await sdkQuery("hi", { cwd: dir, env }, async (m, q) => {
      if (m.type === "system" && commands === undefined) commands = await q.supportedCommands();
    });
    expect(commands).toEqual(
      expect.arrayContaining([
        {
          name: "mcp__docs__review",
          description: "Reviews a file for bugs. (MCP: docs)",
          argumentHint: "<file> [focus]",
        },
      ]),
    );
  });
});
