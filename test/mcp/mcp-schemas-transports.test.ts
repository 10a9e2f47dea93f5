import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type Runner } from "../../src/invocation/runner.js";
import { McpConnection } from "../../src/mcp/mcp-connection.js";
import { mcpTools } from "../../src/mcp/mcp-tools.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/mcp-http.js";
import { drain, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let runner: Runner | undefined;
let http: HttpMcpServer | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await runner?.close();
  await fake?.close();
  await http?.close();
  runner = undefined;
  fake = undefined;
  http = undefined;
  cleanup();
});

const open = (extra: Parameters<typeof createRunner>[0] = {}) => {
  runner = createRunner({
    projectDir: dir,
    env: { HTTP_TOKEN: "s3cret" },
    model: { apiKey: "k", baseURL: (fake as FakeAnthropic).url },
    ...extra,
  });
  return runner;
};

const API_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;
const API_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** Every property key at every depth of a schema. */
function keysOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) keysOf(n, out);
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "properties" && typeof v === "object" && v !== null) out.push(...Object.keys(v));
      keysOf(v, out);
    }
  }
  return out;
}

describe("a server with hostile schemas", () => {
  beforeEach(() => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ hostile: stdioServer("hostile") }),
      "agent.md": "---\nallowed-tools: mcp__hostile\n---\nMain.\n",
    });
  });

  it("is sent with names and keys the API accepts, and no $ref left", async () => {
    fake = await startFakeAnthropic([text("ok")]);
    const { events } = await drain(open().run("go"));
    const tools = (fake.requests[0]?.body.tools ?? []) as { name: string; input_schema: unknown }[];
    expect(tools).toHaveLength(5);
    for (const t of tools) {
      expect(t.name).toMatch(API_NAME);
      for (const k of keysOf(t.input_schema)) expect(k).toMatch(API_KEY);
      expect(JSON.stringify(t.input_schema)).not.toContain("$ref");
    }
    expect(tools.map((t) => t.name)).toContain(`mcp__hostile__n${"a".repeat(99)}`);
    expect(tools.map((t) => t.name)).toContain("mcp__hostile__odd_name_with_spaces");
    expect(ofType(events, "warning").map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^tool 'mcp__hostile__nb{129}' is sent to the API as 'mcp__hostile__nb+_[0-9a-z]{7}'$/,
      ),
    ]);
  });

  it("restores the server's own keys before the call ($top, @odata.type, a long key, nested $eq)", async () => {
    fake = await startFakeAnthropic([
      (req) => {
        const t = (
          req.body.tools as { name: string; input_schema: { properties: Record<string, unknown> } }[]
        ).find((x) => x.name === "mcp__hostile__odata_query");
        const keys = Object.keys(t?.input_schema.properties ?? {});
        const long = keys.find((k) => k.startsWith("kxxx")) as string;
        return call("mcp__hostile__odata_query", {
          dollar_top: 5,
          "at_odata.type": "#user",
          [long]: "v",
          filter: { dollar_eq: "x" },
        });
      },
      call("mcp__hostile__tree", { tree: { label: "a", child: { label: "b", child: { label: "c" } } } }),
      text("done"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(JSON.parse(resultText(resultsSent(fake, 1)[0]))).toEqual({
      $top: 5,
      "@odata.type": "#user",
      [`k${"x".repeat(79)}`]: "v",
      filter: { $eq: "x" },
    });
    expect(JSON.parse(resultText(resultsSent(fake, 2)[0]))).toEqual({
      tree: { label: "a", child: { label: "b", child: { label: "c" } } },
    });
  });

  it("calls a tool whose API name was shortened by the name the model was shown", async () => {
    fake = await startFakeAnthropic([
      (req) => {
        const long = (req.body.tools as { name: string }[]).find((t) =>
          t.name.startsWith("mcp__hostile__nbbb"),
        );
        return call(long?.name ?? "missing", {});
      },
      text("done"),
    ]);
    await drain(open().run("go"));
    expect(resultText(resultsSent(fake, 1)[0])).toBe("longer name called");
  });
});

describe("transports", () => {
  it("streamable HTTP on 127.0.0.1, with headers from ${VAR}", async () => {
    http = await startHttpMcpServer("github", "http");
    writeFiles(dir, {
      ".mcp.json": mcpJson({
        github: { type: "http", url: http.url, headers: { Authorization: "Bearer ${HTTP_TOKEN}" } },
      }),
      "agent.md": "---\nallowed-tools: mcp__github__get_issue\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([call("mcp__github__get_issue", { number: 3 }), text("done")]);
    await drain(open().run("go"));
    expect(toolsOf(fake, 0)).toEqual(["mcp__github__get_issue"]);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("issue #3: the build is red");
    expect(new Set(http.authorizations)).toEqual(new Set(["Bearer s3cret"]));
  });

  it("SSE", async () => {
    http = await startHttpMcpServer("github", "sse");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ github: { type: "sse", url: http.url } }),
      "agent.md": "---\nallowed-tools: mcp__github__list_issues\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([call("mcp__github__list_issues", {}), text("done")]);
    await drain(open().run("go"));
    expect(resultText(resultsSent(fake, 1)[0])).toBe("#1 the build is red\n#2 docs are stale");
  });

  it("an HTTP server that is not there: a warning, and the run goes on", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ gone: { type: "http", url: "http://127.0.0.1:9/mcp" } }),
      "agent.md": "---\nallowed-tools: Read, mcp__gone\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("ok")]);
    const { events, result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(ofType(events, "warning")[0]?.message).toMatch(/^MCP server 'gone' could not be started: /);
  });
});

describe("annotations", () => {
  it("readOnlyHint makes a tool concurrent-safe; others stay sequential", () => {
    const connection = new McpConnection(
      {
        name: "s",
        config: { type: "stdio", command: "x" },
        origin: { file: "f", line: 1, column: 1 },
        scope: "project",
      },
      { timeoutMs: 1000, cwd: dir, env: {} },
    );
    const tools = mcpTools(connection, [
      { name: "read", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
      { name: "write", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } },
      { name: "plain", inputSchema: { type: "object" } },
    ]);
    expect(tools.map((t) => [t.name, t.concurrency, t.interrupt, t.ownsSchema])).toEqual([
      ["mcp__s__read", "concurrent-safe", "cooperative", false],
      ["mcp__s__write", "sequential", "cooperative", false],
      ["mcp__s__plain", "sequential", "cooperative", false],
    ]);
  });
});
