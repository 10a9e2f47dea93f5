import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBinAsync, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { type RestartableHttpMcpServer, startRestartableHttpMcpServer } from "../support/mcp-http.js";
import { call, promptOf, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * A server's prompts, resources, questions (elicitation) and roots, through the built CLI (`run`,
 * `-p`), against a real server written with the SDK's McpServer, over stdio and streamable HTTP.
 * Over stdio and in chat they cross the built CLI; over HTTP and where the list bounds what is
 * read, they run the CLI's main() in this process.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let http: RestartableHttpMcpServer | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  await http?.close();
  fake = undefined;
  http = undefined;
  cleanup();
});

const env = () => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
  HOME: path.join(dir, "home"),
});

async function project(transport: "stdio" | "http", tools: string, extra: Record<string, string> = {}) {
  if (transport === "http") http = await startRestartableHttpMcpServer("extras");
  const server = http ? { type: "http", url: http.url } : stdioServer("extras");
  writeFiles(dir, {
    ".mcp.json": mcpJson({ docs: server }),
    "agent.md": `---\nallowed-tools: ${tools}\n---\nMain.\n`,
    ...extra,
  });
  trustProject(dir);
}

const runBin = (...argv: string[]) => runBinAsync(argv, { cwd: dir, env: env() });
/** The same command through the CLI's main() in this process: the rows that stdio's cross the built CLI for. */
const runMain = (...argv: string[]) =>
  runCli(argv, { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env() } });

describe.each(["stdio", "http"] as const)("over %s", (transport) => {
  const run = transport === "stdio" ? runBin : runMain;
  it("/mcp__docs__review sends the prompt's messages, its arguments filled in order", async () => {
    await project(transport, "mcp__docs__*");
    fake = await startFakeAnthropic([text("reviewed")]);
    const r = await run("run", "/mcp__docs__review src/a.ts races");
    expect(r.code, r.stderr).toBe(0);
    expect(promptOf(fake, 0)).toBe("Review src/a.ts closely for races.");
  });

  it("ListMcpResourcesTool and ReadMcpResourceTool read the server the list reaches whole", async () => {
    await project(transport, "mcp__docs, ListMcpResourcesTool, ReadMcpResourceTool");
    fake = await startFakeAnthropic([
      call("ListMcpResourcesTool", {}),
      call("ReadMcpResourceTool", { server: "docs", uri: "docs://guide" }),
      call("ReadMcpResourceTool", { server: "docs", uri: "docs://logo" }),
      text("done"),
    ]);
    const r = await run("run", "read the docs");
    expect(r.code, r.stderr).toBe(0);
    expect(toolsOf(fake, 0)).toEqual(
      expect.arrayContaining(["ListMcpResourcesTool", "ReadMcpResourceTool", "mcp__docs__ask_name"]),
    );
    const listed = JSON.parse(resultText(resultsSent(fake, 1)[0]));
    expect(listed).toEqual([
      expect.objectContaining({
        server: "docs",
        uri: "docs://guide",
        name: "guide",
        mimeType: "text/markdown",
      }),
      expect.objectContaining({ server: "docs", uri: "docs://logo", name: "logo" }),
    ]);
    expect(resultText(resultsSent(fake, 2)[0])).toBe("GUIDE: tabs, never spaces.");
    expect(resultText(resultsSent(fake, 3)[0])).toBe("[binary resource docs://logo]");
  });

  it("@docs:docs://guide in the prompt is the resource's content", async () => {
    await project(transport, "mcp__docs, ReadMcpResourceTool");
    fake = await startFakeAnthropic([text("ok")]);
    const r = await run("-p", "follow @docs:docs://guide please");
    expect(r.code, r.stderr).toBe(0);
    expect(promptOf(fake, 0)).toBe(
      'follow @docs:docs://guide please\n\n<resource server="docs" uri="docs://guide">\nGUIDE: tabs, never spaces.\n</resource>',
    );
  });

  it("a server's question is declined where nobody can answer, and the run goes on", async () => {
    await project(transport, "mcp__docs__*");
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("went on")]);
    const r = await run("run", "ask me");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
    expect(r.stdout).toContain("went on");
  });

  it("roots/list is answered with the project and the added folders, nothing wider", async () => {
    await project(transport, "mcp__docs__*", { "extra/x.txt": "x" });
    fake = await startFakeAnthropic([call("mcp__docs__show_roots", {}), text("ok")]);
    const r = await run("run", "--add-dir", path.join(dir, "extra"), "roots?");
    expect(r.code, r.stderr).toBe(0);
    const said = resultText(resultsSent(fake, 1)[0]);
    const roots = JSON.parse(said.replace(/^roots: /, "")) as { uri: string }[];
    expect(roots.map((x) => x.uri)).toEqual([
      new URL(`file://${dir}`).href,
      new URL(`file://${path.join(dir, "extra")}`).href,
    ]);
  });
});

describe("the list bounds what is read", () => {
  it("a list that allows one tool of the server reads no resource of it", async () => {
    await project("stdio", "mcp__docs__show_roots, ListMcpResourcesTool, ReadMcpResourceTool");
    fake = await startFakeAnthropic([text("ok")]);
    const r = await runMain("run", "hello");
    expect(r.code, r.stderr).toBe(0);
    expect(toolsOf(fake, 0)).toEqual(["mcp__docs__show_roots"]);
  });

  it("a list that does not name ReadMcpResourceTool attaches no @mention, and says why", async () => {
    await project("stdio", "mcp__docs__*");
    fake = await startFakeAnthropic([text("never asked")]);
    const r = await runMain("run", "follow @docs:docs://guide");
    expect(r.code).not.toBe(0);
    expect(fake.requests).toHaveLength(0);
    expect(r.stdout + r.stderr).toContain("@docs:docs://guide was not attached");
  });

  it("@someone:thing of no server stays text", async () => {
    await project("stdio", "mcp__docs__*");
    fake = await startFakeAnthropic([text("ok")]);
    const r = await runMain("run", "ask @bob:later");
    expect(r.code, r.stderr).toBe(0);
    expect(promptOf(fake, 0)).toBe("ask @bob:later");
  });
});

describe("chat (input piped in)", () => {
  const chat = (input: string) => runBinAsync(["chat"], { cwd: dir, env: env(), input });

  it("a server's question is a form the user fills; /help lists the prompts with their arguments", async () => {
    await project("stdio", "mcp__docs__*");
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("hello Alice")]);
    const r = await chat("ask me\ny\n\nAlice\ny\n/help\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("MCP server 'docs' asks: What is your name?");
    // An empty line for the required name is asked again.
    expect(resultText(resultsSent(fake, 1)[0])).toBe('elicitation: accept {"name":"Alice","tea":true}');
    expect(r.stdout).toMatch(
      /MCP prompts:\n {2}\/mcp__docs__review <file> \[focus\] — Reviews a file for bugs\./,
    );
  });

  it("declining the form answers decline, and the turn goes on", async () => {
    await project("stdio", "mcp__docs__*");
    fake = await startFakeAnthropic([call("mcp__docs__ask_name", {}), text("fine")]);
    const r = await chat("ask me\nn\n");
    expect(r.code, r.stderr).toBe(0);
    expect(resultText(resultsSent(fake, 1)[0])).toBe("elicitation: decline");
  });

  it("a prompt the server adds later is a command at once (prompts/list_changed)", async () => {
    await project("stdio", "mcp__docs__*");
    fake = await startFakeAnthropic([call("mcp__docs__add_prompt", {}), text("added"), text("spoke")]);
    const r = await chat("add one\n/mcp__docs__later\n");
    expect(r.code, r.stderr).toBe(0);
    const last = fake.requests.at(-1)?.body.messages.at(-1);
    expect(JSON.stringify(last?.content)).toContain('"text":"The later prompt speaks."');
  });
});
