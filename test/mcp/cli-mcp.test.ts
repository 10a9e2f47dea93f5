import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { drain } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    ".mcp.json": mcpJson({ github: stdioServer("github", path.join(dir, "github.starts")) }),
    "agent.md": "---\nallowed-tools: Read, Task, mcp__github__*\n---\nMain.\n",
    "agents/triage.md":
      "---\nname: triage\ndescription: Reads one issue.\ntools: mcp__github__get_issue\n---\nTriage.\n",
  });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

describe("agentmd tools shows the MCP tools of allowed servers", () => {
  it("main offers every tool of the server; the subagent only mcp__github__get_issue", async () => {
    const env = { HOME: trustProject(dir) && path.join(dir, "home") };
    const unstarted = await runCli(["tools"], { cwd: dir, env });
    expect(unstarted.stdout).toContain(
      "MCP servers (not started; --mcp starts them to list their tools): github",
    );
    expect(startsOf(path.join(dir, "github.starts"))).toBe(0);
    const main = await runCli(["tools", "--mcp"], { cwd: dir, env });
    expect(main.code).toBe(0);
    expect(main.stdout).toContain(
      "started MCP servers to list their tools (then stopped them): github: 4 tools",
    );
    for (const t of ["get_issue", "list_issues", "create_issue", "whoami"])
      expect(main.stdout).toMatch(new RegExp(`^  mcp__github__${t} +every call$`, "m"));
    const sub = await runCli(["tools", "--mcp", "--chain", "main,agent:triage"], { cwd: dir, env });
    expect(sub.code).toBe(0);
    const offered = sub.stdout.split("removed along the way:")[0] ?? "";
    expect(offered.match(/mcp__github__\w+/g)).toEqual(["mcp__github__get_issue"]);
    expect(sub.stdout).toContain("mcp__github__create_issue: at agent:triage, not in its list");
  });

  it("--try judges an MCP call", async () => {
    const r = await runCli(
      ["tools", "--chain", "main,agent:triage", "--try", "mcp__github__create_issue", '{"title":"x"}'],
      { cwd: dir },
    );
    expect([r.code, r.stdout.trim()]).toEqual([
      3,
      "denied (not-offered): mcp__github__create_issue is not allowed in this run. The subagent 'triage' (agents/triage.md) narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    ]);
  });

  it("starts no server the list could not reach", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nMain.\n" });
    const r = await runCli(["tools", "--mcp"], {
      cwd: trustProject(dir),
      env: { HOME: path.join(dir, "home") },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("started MCP servers");
    expect(startsOf(path.join(dir, "github.starts"))).toBe(0);
  });
});

describe("--mcp on tools and audit runs nothing of an untrusted folder", () => {
  it.each([
    ["tools --mcp", ["tools", "--mcp"]],
    ["audit --mcp", ["audit", "--mcp"]],
  ])("%s refuses, naming agentmd trust; once trusted it starts the server", async (command, argv) => {
    const env = { HOME: path.join(dir, "home") };
    const r = await runCli(argv, { cwd: dir, env });
    expect([r.code, r.stderr]).toEqual([
      1,
      `agentmd ${command}: ${dir} is not trusted, so its servers were not started (github); review them with 'agentmd trust'\n`,
    ]);
    expect(r.stdout).toBe("");
    expect(startsOf(path.join(dir, "github.starts"))).toBe(0);
    trustProject(dir);
    const trusted = await runCli(argv, { cwd: dir, env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("github: 4 tools");
    expect(startsOf(path.join(dir, "github.starts"))).toBe(1);
  });
});

describe("agentmd mcp list", () => {
  it("shows each server, its status and its tools; a failed one with its stderr", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: stdioServer("github"), broken: stdioServer("fails-to-start") }),
    });
    const home = { HOME: trustProject(dir) && path.join(dir, "home") };
    const r = await runCli(["mcp", "list"], { cwd: dir, env: home });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "github (stdio, .mcp.json:3:15) ready: 4 tools, 1 prompt\n  mcp__github__get_issue",
    );
    expect(r.stdout).toContain("  /mcp__github__summarize_issue");
    expect(r.stdout).toContain("broken (stdio, .mcp.json:10:15) failed");
    expect(r.stdout).toContain("fails-to-start: GITHUB_TOKEN is not valid");
    const json = JSON.parse((await runCli(["mcp", "list", "--json"], { cwd: dir, env: home })).stdout);
    expect(json.servers.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ["github", "ready"],
      ["broken", "failed"],
    ]);
  });

  it("a server the settings disable (disabledMcpjsonServers) never starts; enabledMcpjsonServers picks", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: stdioServer("github"), broken: stdioServer("fails-to-start") }),
      ".claude/settings.local.json": JSON.stringify({ disabledMcpjsonServers: ["broken"] }),
    });
    trustProject(dir);
    const r = await runCli(["mcp", "list", "--json"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).servers.map((s: { name: string }) => s.name)).toEqual(["github"]);
    writeFiles(dir, {
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["broken"] }),
    });
    trustProject(dir);
    const only = await runCli(["mcp", "list", "--json"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(JSON.parse(only.stdout).servers.map((s: { name: string }) => s.name)).toEqual(["broken"]);
    // agentmd tools does not start a server the settings turn off either
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: stdioServer("github", path.join(dir, "github.starts")) }),
      ".claude/settings.local.json": JSON.stringify({ disabledMcpjsonServers: ["github"] }),
    });
    const tools = await runCli(["tools", "--mcp"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(tools.stdout).not.toContain("started MCP servers");
    expect(startsOf(path.join(dir, "github.starts"))).toBe(0);
  });

  it("starts no server of a folder whose code is not trusted, and says how to trust it", async () => {
    writeFiles(dir, { ".mcp.json": mcpJson({ github: stdioServer("github") }) });
    const r = await runCli(["mcp", "list"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect([r.code, r.stderr]).toEqual([
      1,
      `agentmd mcp list: ${dir} is not trusted, so its servers were not started (github); review them with 'agentmd trust'\n`,
    ]);
    expect(startsOf(path.join(dir, "github.starts"))).toBe(0);
  });

  it("--help lists the flags and an example; bad usage exits 2", async () => {
    const help = await runCli(["mcp", "--help"], { cwd: dir });
    expect(help.stdout).toContain("--timeout SECONDS");
    expect(help.stdout).toContain("Examples:\n  agentmd mcp list\n  agentmd mcp login linear");
    expect((await runCli(["mcp", "start"], { cwd: dir })).code).toBe(2);
    expect((await runCli(["mcp", "list", "--timeout", "x"], { cwd: dir })).code).toBe(2);
  });
});

describe("agentmd check", () => {
  it("reports a malformed .mcp.json with its line, and a list that hides deferred tools from ToolSearch", async () => {
    writeFiles(dir, {
      ".mcp.json": '{\n  "mcpServers": {\n    "github": { "command": "x", "defer": true },\n  }\n}\n',
    });
    let r = await runCli(["check"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^\.mcp\.json:4:3: error: \.mcp\.json is not valid JSON: .* \[mcp-json\]$/m);
    writeFiles(dir, { ".mcp.json": mcpJson({ github: { command: "x", defer: true } }) });
    r = await runCli(["check"], { cwd: dir });
    expect(r.stdout).toContain(
      "agent.md:2:16: warning: this list allows tools of 'github' (defer: true) but not ToolSearch, so the model cannot find them; add ToolSearch [deferred-without-tool-search]",
    );
  });
});

describe("custom tools", () => {
  it("a .ts tool loads without a build step, is named as written, and is gated like any tool", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Shout\n---\nMain.\n",
      "tools/shout.ts": `import { defineTool, ok } from "agentmd-cli";\nconst upper = (s: string): string => s.toUpperCase();\nexport const shout = defineTool({\n  name: "Shout",\n  description: "Shouts.",\n  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const,\n  execute: async ({ text }) => ok(upper(text)),\n});\n`,
    });
    const { loadCustomTools } = await import("../../src/tools/custom/load-custom-tools.js");
    const custom = await loadCustomTools(dir, { reserved: ["Read"] });
    expect(custom.diagnostics).toEqual([]);
    fake = await startFakeAnthropic([
      call("Shout", { text: "hi" }),
      call("Shout", { txt: "hi" }),
      text("done"),
    ]);
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      tools: { extra: custom.tools },
    });
    await drain(runner.run("go"));
    expect(resultText(resultsSent(fake, 1)[0])).toBe("HI");
    expect(resultText(resultsSent(fake, 2)[0])).toBe(
      "Invalid input for Shout: unknown parameter 'txt' — did you mean 'text'?. The tool was not executed.".replace(
        "?.",
        "?",
      ),
    );
  });

  it("check imports no module: it reports a clash with a built-in by the name the source writes, and each module whose names it cannot read", async () => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Echo\n---\nMain.\n",
      "tools/broken.mjs": "import nothing from './missing.mjs';\nexport default nothing;\n",
      "tools/read.js": `export const read = { name: "Read", description: "mine", inputSchema: { type: "object" }, concurrency: "sequential", interrupt: "cooperative", ownsSchema: true, execute: async () => ({ content: "", isError: false }) };\n`,
      "tools/helper.ts": "export const x: number = 1;\n",
      "tools/echo.mjs": `import { defineTool, ok } from "agentmd";\nexport default defineTool({ name: "Echo", description: "Echoes.", inputSchema: { type: "object", properties: {} }, execute: async () => ok("e") });\n`,
    });
    const r = await runCli(["check"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "tools/broken.mjs:1:1: info: a tool name in tools/broken.mjs is unknown without running tools/broken.mjs; inspection runs no project code, so lists naming it are judged by name only [custom-tool-name-unknown]",
    );
    expect(r.stdout).toContain(
      "tools/read.js:1:1: error: tool 'Read' clashes with the built-in tool of that name; rename it [custom-tool-name]",
    );
    expect(r.stdout).toMatch(/^tools\/helper\.ts:1:1: info: a tool name in tools\/helper\.ts is unknown/m);
    expect(r.stdout).not.toContain("'Echo' is not a built-in tool");
  });
});
