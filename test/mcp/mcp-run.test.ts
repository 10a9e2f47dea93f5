import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type Runner } from "../../src/invocation/runner.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { drain, ofType } from "../support/runs.js";
import { call, calls, resultsSent, resultText, text, toolsOf, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * MCP servers under the allow-list promise, end to end: real servers (stdio, written with the SDK's
 * server classes), the real loop, the fake Anthropic server over real HTTP and SSE.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let runner: Runner | undefined;
let mark: string;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mark = path.join(dir, "github.starts");
  writeFiles(dir, {
    ".mcp.json": mcpJson({ github: stdioServer("github", mark) }),
    "agent.md": "---\nallowed-tools: Read, Task, mcp__github__*\n---\nMain.\n",
    "agents/triage.md":
      "---\nname: triage\ndescription: Reads one issue.\ntools: mcp__github__get_issue\n---\nTriage.\n",
  });
});
afterEach(async () => {
  await runner?.close();
  runner = undefined;
  await fake?.close();
  fake = undefined;
  cleanup();
});

const open = (extra: Parameters<typeof createRunner>[0] = {}) => {
  runner = createRunner({
    projectDir: dir,
    env: {},
    model: { apiKey: "k", baseURL: (fake as FakeAnthropic).url },
    ...extra,
  });
  return runner;
};

describe("a project's MCP server, allowed in agent.md and narrowed by a subagent", () => {
  it("offers the server's tools as mcp__github__*, and the subagent only mcp__github__get_issue", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "t", prompt: "look at #7", subagent_type: "triage" }),
      calls(use("mcp__github__create_issue", { title: "x" }), use("mcp__github__get_issue", { number: 7 })),
      text("it is red"),
      text("triaged"),
    ]);
    const { events, result } = await drain(open().run("go"));
    expect(result).toMatchObject({ outcome: "done", text: "triaged" });
    expect(toolsOf(fake, 0)).toEqual([
      "Read",
      "Task",
      "mcp__github__create_issue",
      "mcp__github__get_issue",
      "mcp__github__list_issues",
      "mcp__github__whoami",
    ]);
    expect(toolsOf(fake, 1)).toEqual(["mcp__github__get_issue"]);
    const [denied, got] = resultsSent(fake, 2);
    expect(resultText(denied)).toBe(
      "mcp__github__create_issue is not allowed in this run. The subagent 'triage' (agents/triage.md) narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(resultText(got)).toBe("issue #7: the build is red");
    expect(ofType(events, "tool_end").map((e) => [e.name, e.decision])).toEqual([
      ["mcp__github__create_issue", "denied"],
      ["mcp__github__get_issue", "allowed"],
      ["Task", "allowed"],
    ]);
    expect(startsOf(mark)).toBe(1);
  });

  it("shares one server process between the runs of a runner, and stops it on close", async () => {
    fake = await startFakeAnthropic([
      call("mcp__github__whoami", {}),
      text("a"),
      call("mcp__github__whoami", {}),
      text("b"),
    ]);
    const r = open();
    await drain(r.run("one"));
    await drain(r.run("two"));
    expect(resultText(resultsSent(fake, 1)[0])).toBe(resultText(resultsSent(fake, 3)[0]));
    expect(startsOf(mark)).toBe(1);
    await r.close();
  });

  it("starts no server whose tools the list could not offer", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, mcp__gitlab__*\n---\nMain.\n" });
    fake = await startFakeAnthropic([text("ok")]);
    const { result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(toolsOf(fake, 0)).toEqual(["Read"]);
    expect(startsOf(mark)).toBe(0);
  });

  it("a bare mcp__github and a single tool name start it too; a deny of the server does not", async () => {
    for (const [allow, deny, starts] of [
      ["mcp__github", "", 1],
      ["mcp__github__list_issues", "", 2],
      ["*", "mcp__github", 2],
    ] as const) {
      writeFiles(dir, {
        "agent.md": `---\nallowed-tools: ${allow}\n${deny ? `disallowed-tools: ${deny}\n` : ""}---\nMain.\n`,
      });
      fake = await startFakeAnthropic([text("ok")]);
      await drain(open().run("go"));
      expect(startsOf(mark)).toBe(starts);
      await runner?.close();
      await fake.close();
    }
  });
});

describe("a server that fails gives error results, not a dead run, and starts again on the next call", () => {
  it("a crash mid-call: the error quotes its stderr; the next call starts a new process", async () => {
    const crashMark = path.join(dir, "crashy.starts");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ crashy: stdioServer("crashy", crashMark) }),
      "agent.md": "---\nallowed-tools: mcp__crashy\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("mcp__crashy__whoami", {}),
      call("mcp__crashy__crash", {}),
      call("mcp__crashy__whoami", {}),
      text("survived"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result).toMatchObject({ outcome: "done", text: "survived" });
    const crashed = resultsSent(fake, 2)[0];
    expect(crashed?.is_error).toBe(true);
    expect(resultText(crashed)).toContain("MCP server 'crashy' failed during the call");
    expect(resultText(crashed)).toContain("crashy: the database is gone, giving up");
    expect(resultText(crashed)).toContain("it will be started again on the next call");
    const before = resultText(resultsSent(fake, 1)[0]);
    const after = resultText(resultsSent(fake, 3)[0]);
    expect(after).toMatch(/^pid \d+$/);
    expect(after).not.toBe(before);
    expect(startsOf(crashMark)).toBe(2);
  });

  it("a hang: the per-call timeout cancels that call, the run goes on, the server runs on", async () => {
    const hangMark = path.join(dir, "hangs.starts");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ hangs: stdioServer("hangs", hangMark) }),
      "agent.md": "---\nallowed-tools: mcp__hangs__*\nmcpTimeout: 0.5\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("mcp__hangs__hang", {}),
      call("mcp__hangs__echo", { text: "still here" }),
      text("done"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result).toMatchObject({ outcome: "done", text: "done" });
    const hung = resultsSent(fake, 1)[0];
    expect(hung?.is_error).toBe(true);
    expect(resultText(hung)).toContain(
      "MCP server 'hangs' did not answer mcp__hangs__hang within 0.5 s, so the call was cancelled (the server goes on running)",
    );
    expect(resultText(hung)).toContain("hangs: waiting forever");
    expect(resultText(resultsSent(fake, 2)[0])).toBe('{"text":"still here"}');
    expect(startsOf(hangMark)).toBe(1);
  });

  it("a server that cannot start: a warning with its stderr; its tools are missing, the run goes on", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ broken: stdioServer("fails-to-start"), github: stdioServer("github") }),
      "agent.md": "---\nallowed-tools: Read, mcp__broken, mcp__github__get_issue\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([call("mcp__broken__anything", {}), text("ok")]);
    const { events, result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(toolsOf(fake, 0)).toEqual(["Read", "mcp__github__get_issue"]);
    const warning = ofType(events, "warning")
      .map((w) => w.message)
      .join("\n");
    expect(warning).toContain("MCP server 'broken' could not be started");
    expect(warning).toContain("fails-to-start: GITHUB_TOKEN is not valid");
    expect(resultText(resultsSent(fake, 1)[0])).toBe(
      "mcp__broken__anything is not allowed in this run. The tool was not executed.",
    );
  });

  it("a definition that needs an unset variable says which; ${VAR:-default} fills in", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({
        github: { ...stdioServer("github"), env: { TOKEN: "${GITHUB_TOKEN}" } },
        other: { command: "${NODE_BIN:-node}", args: ["${MISSING:-x}"] },
      }),
      "agent.md": "---\nallowed-tools: mcp__github\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("ok")]);
    const { events } = await drain(open().run("go"));
    expect(ofType(events, "warning").map((w) => w.message)).toEqual([
      "MCP server 'github' could not be started: its definition needs ${GITHUB_TOKEN}, which is not set\nIts tools are not offered in this run.",
    ]);
  });
});

describe("inline servers of a subagent", () => {
  it("live only for that subagent's runs: the main run does not start them", async () => {
    const localMark = path.join(dir, "local.starts");
    const server = stdioServer("basic", localMark);
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Task, mcp__local__*\n---\nMain.\n",
      "agents/helper.md": `---\nname: helper\ndescription: Has its own server.\ntools: mcp__local__echo\nmcpServers:\n  - local:\n      command: ${JSON.stringify(server.command)}\n      args: ${JSON.stringify(server.args)}\n---\nHelp.\n`,
    });
    fake = await startFakeAnthropic([
      call("Task", { description: "h", prompt: "echo", subagent_type: "helper" }),
      call("mcp__local__echo", { text: "hi" }),
      text("echoed"),
      text("done"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(toolsOf(fake, 0)).toEqual(["Task"]);
    expect(toolsOf(fake, 1)).toEqual(["mcp__local__echo"]);
    expect(resultText(resultsSent(fake, 2)[0])).toBe('{"text":"hi"}');
    expect(startsOf(localMark)).toBe(1);
  });
});

describe("MCP prompts are /mcp__server__prompt commands", () => {
  it("fills the prompt's arguments in order and sends its text as the user's turn", async () => {
    fake = await startFakeAnthropic([text("summary")]);
    const { result } = await drain(open().invoke("/mcp__github__summarize_issue 42 cheerful"));
    expect(result.outcome).toBe("done");
    const first = fake.requests[0]?.body.messages[0]?.content;
    expect(JSON.stringify(first)).toContain("Summarise issue #42 in a cheerful tone.");
  });

  it("refuses a prompt whose server the list could not reach, without starting it", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nMain.\n" });
    fake = await startFakeAnthropic([]);
    const { result } = await drain(open().invoke("/mcp__github__summarize_issue 42"));
    expect(result).toMatchObject({ outcome: "error" });
    expect(result.message).toBe(
      "/mcp__github__summarize_issue is not allowed: this run's list allows no tool of the MCP server 'github'",
    );
    expect(startsOf(mark)).toBe(0);
  });
});
