import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { initOf, sdkQuery } from "../support/agent-sdk.js";
import { runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { type OAuthMcpServer, startOAuthMcpServer } from "../support/mcp-oauth.js";
import { text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * A server that wants a sign-in the run does not have, as the stream-json front doors say it:
 * `system/init`'s `mcp_servers` gives it `status: "needs-auth"` (Claude Code's word), beside the
 * servers that started, and the run still says which server needs `agentmd mcp login`.
 */
let dir: string;
let cleanup: () => void;
let server: OAuthMcpServer;
let fake: FakeAnthropic;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  server = await startOAuthMcpServer();
  fake = await startFakeAnthropic([text("went on")]);
  writeFiles(dir, {
    ".mcp.json": mcpJson({ secure: { type: "http", url: server.url }, docs: stdioServer("extras") }),
    "agent.md": "---\nallowed-tools: Read, mcp__secure__*, mcp__docs__*\n---\nMain.\n",
  });
  trustProject(dir);
});
afterEach(async () => {
  await fake.close();
  await server.close();
  cleanup();
});

const env = () => ({ HOME: path.join(dir, "home"), ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
const SAID = "MCP server 'secure' needs a sign-in: run 'agentmd mcp login secure'";

describe("a server that needs a sign-in, through stream-json", { timeout: 90_000 }, () => {
  it("-p --output-format stream-json: init says needs-auth, and stderr which login to run", async () => {
    const r = await runBinAsync(["-p", "--output-format", "stream-json", "--verbose", "hi"], {
      cwd: dir,
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    const init = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.type === "system" && m.subtype === "init");
    expect(init.mcp_servers).toEqual([
      { name: "secure", status: "needs-auth" },
      { name: "docs", status: "connected" },
    ]);
    expect(r.stderr).toContain(SAID);
  });

  it("the Agent SDK's query: init says needs-auth beside the servers that started", async () => {
    const run = await sdkQuery("hi", { cwd: dir, env: env() });
    expect(run.error, run.stderr).toBeUndefined();
    expect(initOf(run)?.mcp_servers).toEqual([
      { name: "secure", status: "needs-auth" },
      { name: "docs", status: "connected" },
    ]);
    expect(run.stderr).toContain(SAID);
  });
});
