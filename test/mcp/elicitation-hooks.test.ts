import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { it } from "../support/fixture.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * The Elicitation and ElicitationResult hooks, through the built CLI, against a real server (the
 * SDK's McpServer) whose tool `ask_name` asks for `{ name: string (required), tea?: boolean }`. The
 * first run and chat cross the built CLI; the other runs' rows, the CLI's main() in this process.
 */

/** A hook command that keeps its payload in `dir/file` and prints `reply` (JSON), or exits `code`. */
const hook = (dir: string, file: string, reply: unknown, code = 0) =>
  `cat > ${JSON.stringify(path.join(dir, file))}; ${code === 0 ? `echo '${JSON.stringify(reply)}'` : `echo refused >&2; exit ${code}`}`;

const answer = (event: string, action: string, content?: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: event, action, ...(content && { content }) },
});

/** A trusted project in `dir` with the `docs` server and `hooks` in its settings. */
function hooked(dir: string, hooks: Record<string, { matcher?: string; command: string }[]>) {
  const settings = Object.fromEntries(
    Object.entries(hooks).map(([event, list]) => [
      event,
      list.map((h) => ({ matcher: h.matcher ?? "", hooks: [{ type: "command", command: h.command }] })),
    ]),
  );
  writeFiles(dir, {
    ".mcp.json": mcpJson({ docs: stdioServer("extras") }),
    "agent.md": "---\nallowed-tools: mcp__docs__*\n---\nMain.\n",
    ".claude/settings.json": JSON.stringify({ hooks: settings }),
  });
  trustProject(dir);
}

const payload = (dir: string, file: string) => JSON.parse(readFileSync(path.join(dir, file), "utf8"));

describe("Elicitation hooks (run: nobody else can answer)", () => {
  it("a hook whose matcher names the server answers for the user, given the question and its form", async ({
    dir,
    fake,
    cli,
  }) => {
    hooked(dir, {
      Elicitation: [
        { matcher: "docs", command: hook(dir, "in.json", answer("Elicitation", "accept", { name: "Hook" })) },
      ],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("went on"));
    const r = await cli(["run", "ask me"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Hook"}');
    const p = payload(dir, "in.json");
    expect(p).toMatchObject({
      hook_event_name: "Elicitation",
      mcp_server_name: "docs",
      message: "What is your name?",
      mode: "form",
      requested_schema: { type: "object", required: ["name"] },
      cwd: dir,
    });
    expect(p.session_id).toMatch(/\S/);
  });

  it("a hook whose matcher names another server does not run: the question is declined", async ({
    dir,
    fake,
    main,
  }) => {
    hooked(dir, {
      Elicitation: [
        { matcher: "github", command: hook(dir, "in.json", answer("Elicitation", "accept", { name: "X" })) },
      ],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("went on"));
    const r = await main(["run", "ask me"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("content the form refuses is never sent: a decline, said as a warning", async ({ dir, fake, main }) => {
    hooked(dir, {
      Elicitation: [
        { command: hook(dir, "in.json", answer("Elicitation", "accept", { name: 42, pie: true })) },
      ],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("went on"));
    const r = await main(["run", "ask me"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stdout).toContain(
      "warning: an Elicitation hook's answer to MCP server 'docs' does not fit its form ('name' must be text; 'pie' is not a field of the form), so it was declined",
    );
  });

  it("an accept without the required field is declined (-p --verbose says so on stderr)", async ({
    dir,
    fake,
    main,
  }) => {
    hooked(dir, {
      Elicitation: [{ command: hook(dir, "in.json", answer("Elicitation", "accept", { tea: true })) }],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("went on"));
    const r = await main(["-p", "--verbose", "ask me"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stderr).toContain("does not fit its form ('name' is required)");
  });

  it("an ElicitationResult hook is told the answer and may put another", async ({ dir, fake, main }) => {
    hooked(dir, {
      Elicitation: [{ command: hook(dir, "in.json", answer("Elicitation", "accept", { name: "Ada" })) }],
      ElicitationResult: [
        {
          matcher: "docs",
          command: hook(dir, "out.json", answer("ElicitationResult", "accept", { name: "Grace" })),
        },
      ],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("went on"));
    const r = await main(["run", "ask me"]);
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Grace"}');
    expect(payload(dir, "out.json")).toMatchObject({
      hook_event_name: "ElicitationResult",
      mcp_server_name: "docs",
      action: "accept",
      content: { name: "Ada" },
    });
  });

  it("a misspelled event is an error, and nothing runs", async ({ dir, fake, main }) => {
    hooked(dir, { Elicitations: [{ command: "true" }] });
    fake.push(text("never"));
    const r = await main(["run", "ask me"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("unknown hook event 'Elicitations'; did you mean 'Elicitation'?");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("Elicitation hooks in chat (a user could answer)", () => {
  it("a hook that exits 2 declines before the user is asked", async ({ dir, fake, cli }) => {
    hooked(dir, { Elicitation: [{ command: hook(dir, "in.json", {}, 2) }] });
    fake.push(call("mcp__docs__ask_name", {}), text("fine"));
    const r = await cli(["chat"], { input: "ask me\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("asks: What is your name?");
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stdout + r.stderr).toContain("refused");
  });

  it("a hook that gives no action leaves the question to the user; ElicitationResult turns the accept into a decline", async ({
    dir,
    fake,
    cli,
  }) => {
    hooked(dir, {
      Elicitation: [{ command: hook(dir, "in.json", {}) }],
      ElicitationResult: [{ command: hook(dir, "out.json", answer("ElicitationResult", "decline")) }],
    });
    fake.push(call("mcp__docs__ask_name", {}), text("fine"));
    const r = await cli(["chat"], { input: "ask me\ny\nAlice\nn\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("MCP server 'docs' asks: What is your name?");
    expect(payload(dir, "out.json")).toMatchObject({
      action: "accept",
      content: { name: "Alice", tea: false },
    });
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("an ElicitationResult hook that exits 2 declines the user's accept", async ({ dir, fake, cli }) => {
    hooked(dir, { ElicitationResult: [{ command: hook(dir, "out.json", {}, 2) }] });
    fake.push(call("mcp__docs__ask_name", {}), text("fine"));
    const r = await cli(["chat"], { input: "ask me\ny\nAlice\ny\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });
});
