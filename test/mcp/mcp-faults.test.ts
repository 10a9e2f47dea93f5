import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type Runner } from "../../src/invocation/runner.js";
import { type FakeAnthropic, type RecordedRequest, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, startsOf, stdioServer } from "../support/mcp.js";
import { type RestartableHttpMcpServer, startRestartableHttpMcpServer } from "../support/mcp-http.js";
import { drain, ofType } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

/**
 * MCP servers that misbehave, each real (stdio processes and an HTTP server written with the SDK's
 * server classes), under the real loop and the fake Anthropic server: a server's fault is that
 * server's, said truly, and never the end of another call or of the run.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
let runner: Runner | undefined;
let remote: RestartableHttpMcpServer | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await runner?.close();
  runner = undefined;
  await remote?.close();
  remote = undefined;
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

describe("an HTTP server that restarted and answers the old session 404", () => {
  beforeEach(async () => {
    remote = await startRestartableHttpMcpServer("basic");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ remote: { type: "http", url: remote.url } }),
      "agent.md": "---\nallowed-tools: mcp__remote__*\n---\nMain.\n",
    });
  });

  it("gets a new session and the call is sent again, once; later calls use the new session", async () => {
    fake = await startFakeAnthropic([
      call("mcp__remote__echo", { text: "before" }),
      text("a"),
      call("mcp__remote__echo", { text: "after" }),
      call("mcp__remote__echo", { text: "later" }),
      text("b"),
    ]);
    const r = open();
    await drain(r.run("one"));
    expect(remote?.sessions()).toBe(1);
    await remote?.restart();
    const { result } = await drain(r.run("two"));
    expect(result).toMatchObject({ outcome: "done", text: "b" });
    expect(resultText(resultsSent(fake, 3)[0])).toBe('{"text":"after"}');
    expect(resultText(resultsSent(fake, 4)[0])).toBe('{"text":"later"}');
    expect(remote?.sessions()).toBe(2);
  });
});

describe("one call past mcpTimeout", () => {
  it("is cancelled alone: the server keeps running and another run's call on it completes", async () => {
    const mark = path.join(dir, "timing.starts");
    const received = path.join(dir, "hang.received");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ timing: stdioServer("timing", mark) }),
      "agent.md": "---\nallowed-tools: mcp__timing__*\n---\nMain.\n",
    });
    // The first run's call hangs; the second run's last call answers only once the server has
    // seen the first one cancelled, so it is in flight when the first one times out. Both have the
    // same timeout, so the second call must start later than the first by more than the cancel
    // takes to reach the server: six turns of fast calls come first (a second run slower than the
    // whole timeout finds the first call cancelled already, and is answered at once). Each run's
    // next step is read from its own conversation, whichever run's request comes first.
    const step = (req: RecordedRequest) => {
      const turn = req.body.messages.filter((m) => m.role === "assistant").length;
      const first = req.body.messages[0]?.content;
      const prompt = typeof first === "string" ? first : JSON.stringify(first ?? "");
      if (prompt.includes("hang"))
        return turn === 0 ? call("mcp__timing__hang", { mark: received }) : text("done");
      if (turn < 6) return call("mcp__timing__fast", {});
      return turn === 6 ? call("mcp__timing__after_cancel", {}) : text("done");
    };
    fake = await startFakeAnthropic(Array.from({ length: 10 }, () => step));
    const r = open({ mcp: { timeoutMs: 1000 } });
    const first = drain(r.run("hang"));
    await until(() => existsSync(received), { what: "the server to get the hanging call" });
    const second = drain(r.run("wait"));
    const [a, b] = await Promise.all([first, second]);
    expect([a.result.outcome, b.result.outcome]).toEqual(["done", "done"]);
    const sent = [...(fake as FakeAnthropic).requests.keys()]
      .flatMap((i) => resultsSent(fake as FakeAnthropic, i))
      .filter((s) => s.type === "tool_result");
    const hung = sent.find((s) => resultText(s).includes("hang"));
    expect(hung?.is_error).toBe(true);
    expect(resultText(hung)).toBe(
      "MCP server 'timing' did not answer mcp__timing__hang within 1 s, so the call was cancelled (the server goes on running)",
    );
    const other = sent.find((s) => s !== hung && resultText(s) !== "fast");
    expect([other?.is_error ?? false, resultText(other)]).toEqual([
      false,
      "answered after the other call was cancelled",
    ]);
    expect(startsOf(mark)).toBe(1);
  });
});

describe("answers larger than the model API takes", () => {
  it("an 8 MB image is refused and a 50 MB text cut, each said in the result; the server lives on", async () => {
    const mark = path.join(dir, "big.starts");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ big: stdioServer("big", mark) }),
      "agent.md": "---\nallowed-tools: mcp__big__*\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("mcp__big__png_8mb", {}),
      call("mcp__big__text_50mb", {}),
      call("mcp__big__png_small", {}),
      text("done"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result).toMatchObject({ outcome: "done", text: "done" });
    const image = resultsSent(fake, 1)[0];
    expect(JSON.stringify(image?.content)).not.toContain('"type":"image"');
    expect(resultText(image)).toBe(
      "[an image/png image of 8.0 MB was left out: the model API takes images of at most 5 MB]",
    );
    const big = resultText(resultsSent(fake, 2)[0]);
    expect(big.length).toBeLessThan(101_000);
    expect(big).toMatch(/\[output cut at 100,000 characters of 52,428,800\]$/);
    const small = resultsSent(fake, 3)[0];
    expect(JSON.stringify(small?.content)).toContain('"type":"image"');
    expect(startsOf(mark)).toBe(1);
    // agentmd reads a stdio server's messages with its own buffer, put in the SDK's field.
    expect("_readBuffer" in new StdioClientTransport({ command: "true" })).toBe(true);
    // Nothing the API would refuse is kept in the transcript either.
    const sessions = path.join(dir, ".agentmd/sessions");
    for (const f of readdirSync(sessions))
      expect(readFileSync(path.join(sessions, f), "utf8").length).toBeLessThan(1_000_000);
  }, 60_000);
});

describe("a server that floods", () => {
  it("5,000 list_changed notifications and 8 MB of stderr in one call: it answers, and lives on", async () => {
    const mark = path.join(dir, "noisy.starts");
    writeFiles(dir, {
      ".mcp.json": mcpJson({ noisy: stdioServer("noisy", mark) }),
      "agent.md": "---\nallowed-tools: mcp__noisy__*\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([
      call("mcp__noisy__flood", {}),
      call("mcp__noisy__whoami", {}),
      text("ok"),
    ]);
    const { result } = await drain(open().run("go"));
    expect(result.outcome).toBe("done");
    expect(resultText(resultsSent(fake, 1)[0])).toBe("flooded");
    expect(resultText(resultsSent(fake, 2)[0])).toMatch(/^pid \d+$/);
    expect(startsOf(mark)).toBe(1);
  }, 120_000);
});

describe("a server that cannot start", () => {
  it("is that server's fault even when the list names only its tools: an error naming it, not a refusal", async () => {
    writeFiles(dir, {
      ".mcp.json": mcpJson({ broken: stdioServer("fails-to-start") }),
      "agent.md": "---\nallowed-tools: mcp__broken__*\n---\nMain.\n",
    });
    fake = await startFakeAnthropic([text("never asked")]);
    const { events, result } = await drain(open().run("go"));
    expect(result.outcome).toBe("error");
    expect(result.message).toContain("MCP server 'broken' could not be started");
    expect(result.message).toContain("fails-to-start: GITHUB_TOKEN is not valid");
    expect(ofType(events, "error").map((e) => e.code)).toEqual(["mcp_server_failed"]);
    expect(fake.requests).toHaveLength(0);
  });
});
