import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resultLines } from "../support/batch-script.js";
import { type CliRun, runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { alive } from "../support/processes.js";
import { hasRedis, type RedisServer, startRedis } from "../support/redis-server.js";
import { calls, resultsSent, resultText, text, toolsOf, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

// A project as `batch` and `worker` open it: the same custom tools, servers and inputs as `run`,
// whatever the runs start stopped when the batch or the worker ends.

const SHOUT = `import { defineTool, ok } from "agentmd-cli";
export const shout = defineTool({
  name: "Shout",
  description: "Shouts.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const,
  execute: async ({ text }) => ok(text.toUpperCase()),
});
`;

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
const more: (() => void)[] = [];

/** A project with a custom tool and an MCP server that marks each start in `srv.starts`. */
function project(root: string): void {
  writeFiles(root, {
    "agent.md": "---\nallowed-tools: Shout, mcp__srv__echo\nmaxIterations: 5\n---\nBe brief.\n",
    "tools/shout.ts": SHOUT,
    ".mcp.json": mcpJson({ srv: stdioServer("basic", path.join(root, "srv.starts")) }),
    ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash"] } }),
    "CLAUDE.md": "Answer in one word.\n",
    "one.jsonl": `${JSON.stringify({ id: "a", prompt: "shout hi, then echo" })}\n`,
  });
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  project(dir);
  // The project's code is what these tests watch run: its folder is trusted, as after `agentmd trust`.
  trustProject(dir);
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const done of more.splice(0)) done();
  cleanup();
});

const env = (): Record<string, string> => ({
  ANTHROPIC_API_KEY: "k",
  ANTHROPIC_BASE_URL: fake?.url ?? "",
  HOME: path.join(dir, "home"),
});
const lines = resultLines;

/** The custom tool, then the MCP tool, then an answer. */
const script = () => [
  calls(use("Shout", { text: "hi" }, "t1")),
  calls(use("mcp__srv__echo", { text: "ping" }, "t2")),
  text("done"),
];

/** The pids of the server's starts; each must be gone once agentmd has exited. */
function serverPids(root: string): number[] {
  return readFileSync(path.join(root, "srv.starts"), "utf8").trim().split("\n").map(Number);
}

/** `promise`, or a failure that says what did not happen within `ms` (a hang must not pass silently). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function expectCustomAndMcpToolsRan(f: FakeAnthropic): void {
  expect(resultText(resultsSent(f, 1)[0])).toBe("HI");
  expect(resultText(resultsSent(f, 2)[0])).toBe('{"text":"ping"}');
}

describe("agentmd batch opens the project as run does (built CLI, fake server, real MCP server)", () => {
  it("offers the project's custom tools and MCP servers, and exits when done, its servers stopped", async () => {
    fake = await startFakeAnthropic(script());
    let child: ChildProcess | undefined;
    const r = await within(
      30_000,
      "agentmd batch did not exit",
      runBinAsync(["batch", "one.jsonl"], { cwd: dir, env: env(), onStart: (c) => (child = c) }),
    ).catch((e) => {
      child?.kill("SIGKILL");
      throw e;
    });
    expect(r.stderr).toMatch(/batch one: 1 done, 0 failed of 1/);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "a", outcome: "done", text: "done" });
    expect(toolsOf(fake, 0)).toEqual(["Shout", "mcp__srv__echo"]);
    expectCustomAndMcpToolsRan(fake);
    const pids = serverPids(dir);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  it("fails an item whose working folder is outside the project, and runs nothing for it", async () => {
    fake = await startFakeAnthropic([]);
    writeFiles(dir, { "out.jsonl": `${JSON.stringify({ id: "out", prompt: "x", cwd: "../home" })}\n` });
    const r = await runBinAsync(["batch", "out.jsonl"], { cwd: dir, env: env() });
    expect(r.code).toBe(1);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "out", outcome: "error" });
    expect(lines(r.stdout)[0]?.message).toMatch(/working folder \S*\/home is outside the project/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("agentmd batch in a folder whose code is not trusted", () => {
  it("runs every item restricted, said once: no custom tool, no MCP server, its lists still bind", async () => {
    const { dir: checkout, cleanup: done } = tempDir();
    more.push(done);
    project(checkout);
    writeFiles(checkout, {
      "agent.md": "---\nallowed-tools: Shout, mcp__srv__echo, Read, Bash\nmaxIterations: 5\n---\nBe brief.\n",
      "two.jsonl": ["a", "b"].map((id) => JSON.stringify({ id, prompt: "shout hi" })).join("\n"),
    });
    fake = await startFakeAnthropic([
      calls(use("Bash", { command: "ls" }, "t1")),
      text("done"),
      text("done"),
    ]);
    const r = await runBinAsync(["batch", "two.jsonl", "--concurrency", "1"], { cwd: checkout, env: env() });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(lines(r.stdout).map((l) => l.outcome)).toEqual(["done", "done"]);
    expect(r.stderr.split("is not trusted").length - 1).toBe(1);
    expect(r.stderr.split("agentmd trust").length - 1).toBe(1);
    expect(r.stderr).toContain("custom tool module tools/shout.ts");
    expect(toolsOf(fake, 0)).not.toContain("Shout");
    expect(toolsOf(fake, 0)).not.toContain("mcp__srv__echo");
    expect(resultText(resultsSent(fake, 1)[0])).toMatch(/Bash is not allowed: .Bash. in settings/);
    expect(existsSync(path.join(checkout, "srv.starts"))).toBe(false);
  });
});

describe.runIf(hasRedis)("agentmd worker opens the project as run does (real Redis, real MCP server)", () => {
  let redis: RedisServer;
  const workers: { child?: ChildProcess; done: Promise<CliRun> }[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    await redis.client.flushall();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.child?.kill("SIGKILL");
      await w.done;
    }
  });

  function startWorkerIn(cwd: string) {
    const w: { child?: ChildProcess; done: Promise<CliRun> } = {
      done: Promise.resolve({ code: 0, stdout: "", stderr: "" }),
    };
    w.done = runBinAsync(["worker", "--redis", redis.url, "--concurrency", "1", "--lock-duration", "3000"], {
      cwd,
      env: env(),
      onStart: (child) => (w.child = child),
    });
    workers.push(w);
    return w;
  }
  const collect = (file: string, cwd = dir) =>
    runBinAsync(["batch", file, "--redis", redis.url, "--wait"], { cwd, env: env() });

  it("runs a job with the custom tool and the MCP server, then stops on Ctrl-C (130), leaving no server", async () => {
    fake = await startFakeAnthropic(script());
    const w = startWorkerIn(dir);
    const r = await collect("one.jsonl");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "a", outcome: "done", text: "done" });
    expectCustomAndMcpToolsRan(fake);
    const [pid] = serverPids(dir);
    expect(pid !== undefined && alive(pid)).toBe(true);
    w.child?.kill("SIGINT");
    const stopped = await within(10_000, "the worker did not stop on Ctrl-C", w.done);
    expect(stopped.code).toBe(130);
    expect(serverPids(dir).filter(alive)).toEqual([]);
  });

  it("in a folder whose code is not trusted runs jobs restricted, said once when it starts", async () => {
    const { dir: checkout, cleanup: done } = tempDir();
    more.push(done);
    project(checkout);
    writeFiles(checkout, {
      "agent.md": "---\nallowed-tools: Shout, mcp__srv__echo, Read, Bash\nmaxIterations: 5\n---\nBe brief.\n",
      "two.jsonl": ["a", "b"].map((id) => JSON.stringify({ id, prompt: "shout hi" })).join("\n"),
    });
    fake = await startFakeAnthropic([text("done"), text("done")]);
    const w = startWorkerIn(checkout);
    const r = await collect("two.jsonl", checkout);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(lines(r.stdout).map((l) => l.outcome)).toEqual(["done", "done"]);
    expect(toolsOf(fake, 0)).not.toContain("Shout");
    expect(toolsOf(fake, 1)).not.toContain("mcp__srv__echo");
    expect(existsSync(path.join(checkout, "srv.starts"))).toBe(false);
    w.child?.kill("SIGINT");
    const stopped = await within(10_000, "the worker did not stop on Ctrl-C", w.done);
    expect(stopped.stderr.split("is not trusted").length - 1).toBe(1);
    expect(stopped.stderr).toContain("agentmd trust");
  });

  it("refuses a job whose working folder is outside the project: reported failed, nothing run", async () => {
    fake = await startFakeAnthropic([]);
    writeFiles(dir, { "out.jsonl": `${JSON.stringify({ id: "out", prompt: "x", cwd: "../home" })}\n` });
    startWorkerIn(dir);
    const r = await collect("out.jsonl");
    expect(r.code).toBe(1);
    expect(lines(r.stdout)[0]).toMatchObject({ id: "out", outcome: "error" });
    expect(lines(r.stdout)[0]?.message).toMatch(
      /refused by .*working folder \S*\/home is outside the project/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ["its settings lack the enqueuer's deny", ".claude/settings.json", "{}"],
    ["its .mcp.json differs", ".mcp.json", mcpJson({})],
    ["its tools/ differ", "tools/extra.ts", "export const x = 1;\n"],
    ["its CLAUDE.md differs", "CLAUDE.md", "Answer at length.\n"],
  ])(
    "does not run a job when %s from the enqueuer's: it waits for a worker of its version",
    async (_what, file, content) => {
      fake = await startFakeAnthropic([]);
      const { dir: checkout, cleanup: done } = tempDir();
      more.push(done);
      project(checkout);
      writeFiles(checkout, { [file]: content });
      startWorkerIn(checkout);
      let said = "";
      const r = await runBinAsync(["batch", "one.jsonl", "--redis", redis.url, "--wait"], {
        cwd: dir,
        env: env(),
        onStart: (child) =>
          child.stderr?.on("data", (d: Buffer) => {
            said += d.toString();
            if (said.includes("they wait for a worker of version")) child.kill("SIGINT");
          }),
      });
      expect(r.stderr).toMatch(
        /jobs made for project version sha256:\w+ were put back by \S+, whose project is sha256:\w+/,
      );
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe("");
      expect(fake.requests).toHaveLength(0);
      expect(await redis.client.zcard("bull:agentmd:failed")).toBe(0);
    },
  );
});
