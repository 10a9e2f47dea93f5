import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type Runner } from "../../src/invocation/runner.js";
import { createToolRegistry, defineForeignTool } from "../../src/tools/registry.js";
import { deferredNames, parseToolSearch } from "../../src/tools/search/deferral.js";
import { searchTools } from "../../src/tools/search/search-tools.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { drain, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let runner: Runner | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await runner?.close();
  await fake?.close();
  runner = undefined;
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

describe("deferred tools behind ToolSearch", () => {
  it("a server marked defer: true sends no definitions; ToolSearch makes the found ones callable next turn", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: { ...stdioServer("github"), defer: true } }),
      "agent.md": "---\nallowed-tools: Read, ToolSearch, mcp__github__*\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("ToolSearch", { query: "get_issue" }),
      call("mcp__github__get_issue", { number: 9 }),
      text("done"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(toolsOf(fake, 0)).toEqual(["Read", "ToolSearch"]);
    const found = resultText(resultsSent(fake, 1)[0]);
    expect(found).toMatch(
      /^Found 1 tool; it is callable from your next turn:\n\{"name":"mcp__github__get_issue"/,
    );
    expect(toolsOf(fake, 1)).toEqual(["Read", "ToolSearch", "mcp__github__get_issue"]);
    expect(resultText(resultsSent(fake, 2)[0])).toBe("issue #9: the build is red");
  });

  it("over the threshold every MCP tool is deferred; select: picks by name; nothing outside the list is found", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ many: stdioServer("many:200"), github: stdioServer("github") }),
      "agent.md": "---\nallowed-tools: ToolSearch, mcp__many__*, mcp__github__get_issue\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("ToolSearch", { query: "select:mcp__many__tool_007,tool_008,mcp__github__create_issue" }),
      text("done"),
    ]);
    await drain(open().run("go"));
    expect(toolsOf(fake, 0)).toEqual(["ToolSearch"]);
    const sent = (fake.requests[0]?.body.tools ?? []) as { description: string }[];
    const description = sent[0]?.description ?? "";
    expect(description).toContain("mcp__many__tool_199");
    expect(description).not.toContain("create_issue");
    expect(toolsOf(fake, 1)).toEqual(["ToolSearch", "mcp__many__tool_007", "mcp__many__tool_008"]);
  });

  it("under the threshold, or with toolSearch: false, definitions are sent and there is no ToolSearch", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ many: stdioServer("many:200") }),
      "agent.md": "---\nallowed-tools: ToolSearch, mcp__many__tool_001\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("a"), text("b")]);
    await drain(open().run("go"));
    expect(toolsOf(fake, 0)).toEqual(["mcp__many__tool_001"]);
    await runner?.close();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: ToolSearch, mcp__many\ntoolSearch: false\n---\nMain.\n",
    });
    await drain(open().run("go"));
    expect(toolsOf(fake, 1)).toHaveLength(200);
  });

  it("a list that allows deferred tools but not ToolSearch is warned about", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: { ...stdioServer("github"), defer: true } }),
      "agent.md": "---\nallowed-tools: Read, mcp__github\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("ok")]);
    const { events } = await drain(open().run("go"));
    expect(toolsOf(fake, 0)).toEqual(["Read"]);
    expect(ofType(events, "warning").map((w) => w.message)).toEqual([
      "4 tool definitions are deferred (toolSearch), but this run's list does not allow ToolSearch, so the model cannot find them; allow ToolSearch, or set toolSearch: false",
    ]);
  });
});

const tool = (name: string, description: string) =>
  defineForeignTool({
    name,
    description,
    inputSchema: { type: "object" },
    execute: async () => ({ content: "", isError: false }),
  });

describe("searchTools", () => {
  const registry = createToolRegistry([
    tool("mcp__slack__send_message", "Sends a message to a channel."),
    tool("mcp__slack__list_channels", "Lists channels."),
    tool("mcp__github__create_issue", "Opens an issue; can send a notification."),
    tool("mcp__github__getPullRequest", "Reads a pull request."),
  ]);
  const names = (q: string, max = 5) => searchTools(q, registry.all, max).map((r) => r.tool.name);

  it.each([
    ["select:mcp__slack__send_message", ["mcp__slack__send_message"]],
    ["select:list_channels, create_issue", ["mcp__slack__list_channels", "mcp__github__create_issue"]],
    ["select:nope", []],
    ["send", ["mcp__slack__send_message", "mcp__github__create_issue"]],
    ["+github send", ["mcp__github__create_issue"]],
    ["pull request", ["mcp__github__getPullRequest"]],
    ["channels", ["mcp__slack__list_channels"]],
    ["", []],
    ["+", []],
    ["zzz", []],
    ["(unbalanced [regex", []],
  ])("%s → %j", (q, expected) => {
    expect(names(q)).toEqual(expected);
  });

  it("returns at most max_results", () => {
    expect(names("slack", 1)).toEqual(["mcp__slack__list_channels"]);
  });
});

describe("when definitions are deferred", () => {
  const registry = createToolRegistry(
    Array.from({ length: 100 }, (_, i) => tool(`mcp__s__t${i}`, "x".repeat(1000))),
  );
  const all = new Set(registry.all.map((r) => r.tool.name));
  it.each([
    ["auto", 100],
    ["auto:90", 0],
    [true, 100],
    [false, 0],
  ] as const)("toolSearch %s → %i deferred", (setting, n) => {
    expect(deferredNames(registry.all, all, new Set(), parseToolSearch(setting)).size).toBe(n);
  });

  it("a server's defer: true defers its tools under the threshold, but not with toolSearch: false", () => {
    const one = new Set(["mcp__s__t1"]);
    expect([...deferredNames(registry.all.slice(0, 2), all, one, parseToolSearch("auto"))]).toEqual([
      "mcp__s__t1",
    ]);
    expect(deferredNames(registry.all.slice(0, 2), all, one, parseToolSearch(false)).size).toBe(0);
  });
});
