import path from "node:path";
import { describe, expect, it } from "vitest";
import { definitionFromObject } from "../../src/definitions/index.js";
import { checkServerConfig, serverNameOf } from "../../src/definitions/mcp-servers.js";
import { expandConfig, expandVars } from "../../src/mcp/expand-vars.js";
import { parseMcpJson } from "../../src/mcp/read-mcp-json.js";

const brief = (r: ReturnType<typeof parseMcpJson>) =>
  r.diagnostics.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}: ${d.message}`);

describe(".mcp.json", () => {
  it("reads Claude Code's format", () => {
    const r = parseMcpJson(
      "/p/.mcp.json",
      JSON.stringify({
        mcpServers: {
          github: { command: "npx", args: ["-y", "gh-mcp"], env: { T: "${GITHUB_TOKEN}" } },
          remote: { type: "http", url: "https://x.test/mcp", headers: { A: "b" } },
          events: { type: "sse", url: "https://x.test/sse" },
        },
      }),
    );
    expect(brief(r)).toEqual([]);
    expect(r.servers.map((s) => [s.name, s.config.type])).toEqual([
      ["github", "stdio"],
      ["remote", "http"],
      ["events", "sse"],
    ]);
  });

  it("a file that is not JSON is one error at its line and column, never a crash", () => {
    const r = parseMcpJson("/p/.mcp.json", '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n');
    expect(r.servers).toEqual([]);
    expect(brief(r)).toEqual([
      expect.stringMatching(/^3:28 error mcp-json: \.mcp\.json is not valid JSON: /),
    ]);
  });

  it("a bad server is an error at its key; the others still load", () => {
    const text =
      '{\n  "mcpServers": {\n    "bad": { "args": ["x"] },\n    "worse": { "type": "http", "url": 5 },\n    "odd": { "command": "x", "args": [1] },\n    "my.server": { "command": "x", "alwaysAllow": [] },\n    "ok": { "command": "x" }\n  }\n}\n';
    const r = parseMcpJson("/p/.mcp.json", text);
    expect(r.servers.map((s) => s.name)).toEqual(["my_server", "ok"]);
    expect(brief(r)).toEqual([
      "3:12 error mcp-server: MCP server 'bad': a stdio server needs a 'command' (or 'type': 'http' or 'sse' with a 'url')",
      "4:39 error mcp-server: MCP server 'worse': 'url' must be text, got 5",
      "5:39 error mcp-server: MCP server 'odd': 'args' item 1 must be text",
      "6:18 warning mcp-server-name: MCP server 'my.server' is named 'my_server' in tool names (mcp__my_server__…): names hold letters, digits, '_' and '-', and no '__'",
      "6:51 info mcp-server-key: MCP server 'my.server': 'alwaysAllow' is not read by agentmd",
    ]);
  });

  it.each([
    ["[]", '1:1 error mcp-json: .mcp.json must hold { "mcpServers": { "name": { … } } }'],
    ['{"mcpServers": 3}', '1:1 error mcp-json: .mcp.json must hold { "mcpServers": { "name": { … } } }'],
    ["{}", undefined],
    [
      '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}',
      '1:40 error mcp-json: .mcp.json has the key "a" twice in one object; a JSON reader keeps only the last, so write it once',
    ],
  ])("%s", (text, expected) => {
    expect(brief(parseMcpJson("/p/.mcp.json", text))[0]).toBe(expected);
  });
});

describe("server definitions", () => {
  it.each([
    [{ command: "x" }, "ok"],
    [{ url: "https://a.test" }, "ok"],
    [{ type: "streamable-http", url: "http://a.test" }, "ok"],
    [{ type: "ws", url: "ws://a" }, `'type' must be stdio, http or sse, got "ws"`],
    [{ type: "http", url: "ftp://a" }, "a http server needs a 'url' starting with http:// or https://"],
    [{ command: "x", env: { A: 1 } }, "'env.A' must be text"],
    [{ command: "x", defer: "yes" }, "'defer' must be true or false"],
    ["npx x", "a server must be a map of keys (command, args, env, or type and url)"],
    [{ command: "" }, "a stdio server needs a 'command' (or 'type': 'http' or 'sse' with a 'url')"],
  ])("%j → %s", (value, expected) => {
    const r = checkServerConfig(value);
    expect(r.ok ? "ok" : r.message).toBe(expected);
  });

  it.each([
    ["github", "github"],
    ["my.server", "my_server"],
    ["a__b", "a_b"],
    ["__", undefined],
    ["héllo wörld", "h_llo_w_rld"],
  ])("server name %s → %s", (raw, name) => {
    expect(serverNameOf(raw)).toBe(name);
  });

  it("expands ${VAR} and ${VAR:-default}, and names what is unset", () => {
    const env = { A: "1", EMPTY: "" };
    expect(expandVars("${A}-${B:-two}-${EMPTY:-e}-$A", env)).toBe("1-two-e-$A");
    const r = expandConfig({ type: "stdio", command: "${BIN}", args: ["${A}"], env: { T: "${TOKEN}" } }, env);
    expect(r.missing).toEqual(["BIN", "TOKEN"]);
    expect(r.config.args).toEqual(["1"]);
  });
});

describe("mcpServers in agent.md and subagents", () => {
  const root = "/p";
  it("takes names and inline definitions, in list or map form", () => {
    const r = definitionFromObject(
      "agent",
      {
        name: "a",
        description: "d",
        mcpServers: ["github", { local: { command: "node", args: ["s.js"] } }],
      },
      root,
    );
    expect(r.diagnostics).toEqual([]);
    expect(
      r.definition?.surface === "agent" && r.definition.mcpServers?.map((s) => [s.kind, s.name]),
    ).toEqual([
      ["name", "github"],
      ["inline", "local"],
    ]);
    const m = definitionFromObject(
      "main",
      { mcpServers: { x: { url: "https://x.test" } }, mcpTimeout: 5 },
      root,
    );
    expect(m.definition?.surface === "main" && m.definition.mcpServers?.[0]?.name).toBe("x");
  });

  it("a broken inline definition is an error at its place, and the file does not load", () => {
    const r = definitionFromObject(
      "agent",
      { name: "a", description: "d", mcpServers: [{ local: { args: [] } }] },
      root,
    );
    expect(r.definition).toBeUndefined();
    expect(r.diagnostics.map((d) => `${path.basename(d.file)}:${d.line} ${d.code}: ${d.message}`)).toEqual([
      "a.md:6 mcp-server: MCP server 'local': a stdio server needs a 'command' (or 'type': 'http' or 'sse' with a 'url')",
    ]);
  });

  it("is no longer a foreign key; a skill's mcpServers still is not its key", () => {
    const s = definitionFromObject("skill", { name: "s", description: "d", mcpServers: ["x"] }, root);
    expect(s.diagnostics.map((d) => d.code)).toEqual(["key-not-for-surface"]);
  });
});
