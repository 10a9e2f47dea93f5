import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * The Elicitation and ElicitationResult hooks, through the built CLI, against a real server (the
 * SDK's McpServer) whose tool `ask_name` asks for `{ name: string (required), tea?: boolean }`. The
 * first run and chat cross the built CLI; the other runs' rows, the CLI's main() in this process.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const env = () => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
  HOME: path.join(dir, "home"),
});

/** A hook command that keeps its payload in `file` and prints `reply` (JSON), or exits `code`. */
const hook = (file: string, reply: unknown, code = 0) =>
  `cat > ${JSON.stringify(path.join(dir, file))}; ${code === 0 ? `echo '${JSON.stringify(reply)}'` : `echo refused >&2; exit ${code}`}`;

const answer = (event: string, action: string, content?: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: event, action, ...(content && { content }) },
});

function project(hooks: Record<string, { matcher?: string; command: string }[]>) {
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

const payload = (file: string) => JSON.parse(readFileSync(path.join(dir, file), "utf8"));
const run = (...argv: string[]) => runBinAsync(argv, { cwd: dir, env: env() });
/** The same command through the CLI's main() in this process: the rows the first test crosses the built CLI for. */
const runMain = (...argv: string[]) =>
  runCli(argv, { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env() } });
const chat = (input: string) => runBinAsync(["chat"], { cwd: dir, env: env(), input });

describe("Elicitation hooks (run: nobody else can answer)", () => {
  it("a hook whose matcher names the server answers for the user, given the question and its form", async () => {
    project({
      Elicitation: [
        { matcher: "docs", command: hook("in.json", answer("Elicitation", "accept", { name: "Hook" })) },
      ],
    });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await run("run", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Hook"}');
    const p = payload("in.json");
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

  it("a hook whose matcher names another server does not run: the question is declined", async () => {
    project({
      Elicitation: [
        { matcher: "github", command: hook("in.json", answer("Elicitation", "accept", { name: "X" })) },
      ],
    });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await runMain("run", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("content the form refuses is never sent: a decline, said as a warning", async () => {
    project({
      Elicitation: [{ command: hook("in.json", answer("Elicitation", "accept", { name: 42, pie: true })) }],
    });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await runMain("run", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stdout).toContain(
      "warning: an Elicitation hook's answer to MCP server 'docs' does not fit its form ('name' must be text; 'pie' is not a field of the form), so it was declined",
    );
  });

  it("an accept without the required field is declined (-p --verbose says so on stderr)", async () => {
    project({ Elicitation: [{ command: hook("in.json", answer("Elicitation", "accept", { tea: true })) }] });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await runMain("-p", "--verbose", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stderr).toContain("does not fit its form ('name' is required)");
  });

  it("an ElicitationResult hook is told the answer and may put another", async () => {
    project({
      Elicitation: [{ command: hook("in.json", answer("Elicitation", "accept", { name: "Ada" })) }],
      ElicitationResult: [
        {
          matcher: "docs",
          command: hook("out.json", answer("ElicitationResult", "accept", { name: "Grace" })),
        },
      ],
    });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await runMain("run", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Grace"}');
    expect(payload("out.json")).toMatchObject({
      hook_event_name: "ElicitationResult",
      mcp_server_name: "docs",
      action: "accept",
      content: { name: "Ada" },
    });
  });

  it("a misspelled event is an error, and nothing runs", async () => {
    project({ Elicitations: [{ command: "true" }] });
    fake = await startFakeAnthropic([text("never")]);
    const r = await runMain("run", "ask me");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("unknown hook event 'Elicitations'; did you mean 'Elicitation'?");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("Elicitation hooks in chat (a user could answer)", () => {
  it("a hook that exits 2 declines before the user is asked", async () => {
    project({ Elicitation: [{ command: hook("in.json", {}, 2) }] });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("fine")]);
    const r = await chat("ask me\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("asks: What is your name?");
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stdout + r.stderr).toContain("refused");
  });

  it("a hook that gives no action leaves the question to the user; ElicitationResult turns the accept into a decline", async () => {
    project({
      Elicitation: [{ command: hook("in.json", {}) }],
      ElicitationResult: [{ command: hook("out.json", answer("ElicitationResult", "decline")) }],
    });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("fine")]);
    const r = await chat("ask me\ny\nAlice\nn\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("MCP server 'docs' asks: What is your name?");
    expect(payload("out.json")).toMatchObject({ action: "accept", content: { name: "Alice", tea: false } });
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("an ElicitationResult hook that exits 2 declines the user's accept", async () => {
    project({ ElicitationResult: [{ command: hook("out.json", {}, 2) }] });
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("fine")]);
    const r = await chat("ask me\ny\nAlice\ny\n");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });
});
