import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTACHMENT } from "../../src/invocation/body-syntax.js";
import { createRunner } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import { ConfigError } from "../../src/shared/errors.js";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, jsonLines, ofType } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * One path per concern: a subagent is prepared the same way from `--agent` and from Task; a body's
 * `!cmd` is a call of the run like any other; a run's events reach every reader.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Task, Bash(echo:*)\nmaxIterations: 6\n---\nMain.\n",
    "agents/brief.md":
      "---\nname: brief\ndescription: Stops after one turn.\ntools: Read\nmaxIterations: 1\n---\nBe brief.\n",
    "commands/hello.md": "---\nallowed-tools: Bash(echo:*)\n---\nSaid: !`echo hi $1`\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const runner = () =>
  createRunner({ projectDir: dir, env: {}, model: { apiKey: "k", baseURL: (fake as FakeAnthropic).url } });
const readAgain = () => call("Read", { file_path: "a.txt" });

describe("a subagent is prepared the same way wherever it starts", () => {
  it("--agent NAME stops at the subagent's own maxIterations, not agent.md's", async () => {
    fake = await startFakeAnthropic([readAgain(), readAgain(), readAgain()]);
    const { result } = await drain(runner().run("go", { agent: "brief" }));
    expect([result.outcome, result.turns]).toEqual(["limit", 1]);
    expect(fake.requests).toHaveLength(1);
  });

  it("the same subagent started by Task stops there too", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "b", prompt: "go", subagent_type: "brief" }),
      readAgain(),
      text("main is done"),
    ]);
    const { events, result } = await drain(runner().run("go"));
    expect(result.text).toBe("main is done");
    const child = ofType(events, "run_end").find((e) => e.depth === 1);
    expect([child?.outcome, child?.turns]).toEqual(["limit", 1]);
  });

  it("and from the command line", async () => {
    fake = await startFakeAnthropic([readAgain(), readAgain()]);
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir };
    const r = await runCli(["run", "--agent", "brief", "--output", "stream-json", "go"], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(ofType(jsonLines(r.stdout), "run_end").map((e) => [e.outcome, e.turns])).toEqual([["limit", 1]]);
  });
});

describe("a body's !cmd is a call of the run", () => {
  it("shows as tool events of the run, in the transcript and the rendered output", async () => {
    fake = await startFakeAnthropic([text("seen")]);
    const env = {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: fake.url,
      HOME: dir,
      PATH: process.env.PATH ?? "",
    };
    const r = await runCli(["run", "/hello there"], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("⏺ Bash echo hi there → ok");
    const session = /session (\S+) /.exec(r.stdout)?.[1] as string;
    const events = jsonLines(readFileSync(path.join(dir, ".agentmd/sessions", `${session}.jsonl`), "utf8"));
    const start = ofType(events, "run_start")[0];
    const ends = ofType(events, "tool_end");
    expect(ends.map((e) => [e.name, e.decision, e.content, e.runId])).toEqual([
      ["Bash", "allowed", "hi there\n[exit code 0]", start?.runId],
    ]);
    // tool_run: the call passed its checks and its tool is about to run (written before it runs).
    expect(events.map((e) => e.type).slice(0, 5)).toEqual([
      "run_start",
      "tool_start",
      "tool_run",
      "tool_end",
      "user_message",
    ]);
    expect(ofType(events, "user_message")[0]?.content).toBe("Said: hi there");
  });

  it("attaches @files through the Read path, dotfiles too, and stops on one the lists deny", async () => {
    writeFiles(dir, {
      "commands/ctx.md": "---\nallowed-tools: Read\n---\nLook at @.github/ci.yml and @a.txt\n",
      "commands/secret.md": "---\nallowed-tools: Read\ndisallowed-tools: Read(.env)\n---\nSee @.env\n",
      ".github/ci.yml": "on: push\n",
      ".env": "TOKEN=1\n",
    });
    fake = await startFakeAnthropic([text("seen")]);
    const env = {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: fake.url,
      HOME: dir,
      PATH: process.env.PATH ?? "",
    };
    const r = await runCli(["run", "/ctx"], { cwd: dir, env });
    expect(r.code).toBe(0);
    const sent = JSON.stringify(fake.requests[0]?.body.messages);
    expect(sent).toContain('<file path=\\".github/ci.yml\\">');
    expect(sent).toContain("on: push");
    expect(sent).toContain("alpha");
    const denied = await runCli(["run", "/secret"], { cwd: dir, env });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr + denied.stdout).toContain("@.env was not attached");
    expect(fake.requests).toHaveLength(1);
  });

  it("knows an @mention by its shape: relative, dotted, absolute or in home; never an address", () => {
    const mentions = (t: string) => [...t.matchAll(ATTACHMENT)].map((m) => m[1]);
    expect(mentions("see @a.txt @.env @./b @../../etc/hosts @/etc/hosts @~/notes.md")).toEqual([
      "a.txt",
      ".env",
      "./b",
      "../../etc/hosts",
      "/etc/hosts",
      "~/notes.md",
    ]);
    expect(mentions("mail me@example.com or @ alone, @. or @..")).toEqual([]);
  });

  it("passes the run's hooks, under the run's own id", async () => {
    writeFiles(dir, { "commands/bad.md": "---\nallowed-tools: Bash\n---\n!`echo x`\n" });
    fake = await startFakeAnthropic([]);
    const gate = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      tools: { schemaValidation: "enforce" },
      hooks: {
        PreToolUse: [{ run: (p) => ({ block: `saw ${p.tool_name} in ${p.run_id.slice(0, 4)}` }) }],
      },
    });
    const { events, result } = await drain(gate.run("/bad"));
    expect(result.outcome).toBe("error");
    expect(result.message).toBe(
      "/bad: the command !`echo x` was not run: blocked by a PreToolUse hook: saw Bash in run-",
    );
    expect(ofType(events, "tool_end").map((e) => e.decision)).toEqual(["blocked-by-hook"]);
  });
});

describe("a run's events reach every reader", () => {
  it("two readers each see every event, from the start", async () => {
    fake = await startFakeAnthropic([readAgain(), text("done")]);
    const handle = runner().run("go");
    const read = async () => {
      const seen: string[] = [];
      for await (const e of handle) seen.push(e.type);
      return seen;
    };
    const [a, b] = await Promise.all([read(), read()]);
    expect(a).toEqual(b);
    expect(a[0]).toBe("run_start");
    expect(a.at(-1)).toBe("run_end");
    expect((await handle.result()).outcome).toBe("done");
  });

  it("a reader that breaks out ends alone; the other reads on and the run finishes", async () => {
    fake = await startFakeAnthropic([readAgain(), text("done")]);
    const handle = runner().run("go");
    const quitter = (async () => {
      for await (const e of handle) if (e.type === "run_start") break;
      return "left";
    })();
    const stayer = (async () => {
      const seen: RunEvent[] = [];
      for await (const e of handle) seen.push(e);
      return seen;
    })();
    expect(await quitter).toBe("left");
    expect((await stayer).at(-1)?.type).toBe("run_end");
    expect((await handle.result()).outcome).toBe("done");
  });

  it("a handle nobody iterates keeps no events: a reader that starts after the end sees none", async () => {
    fake = await startFakeAnthropic([text("a long answer ".repeat(50))]);
    const handle = runner().run("go");
    expect((await handle.result()).outcome).toBe("done");
    const late: RunEvent[] = [];
    for await (const e of handle) late.push(e);
    expect(late).toEqual([]);
  });
});

describe("the model", () => {
  it("recording without an API key fails at once, as a live run does", () => {
    expect(() =>
      createRunner({ projectDir: dir, env: {}, model: { record: path.join(dir, "rec.jsonl") } }),
    ).toThrow(ConfigError);
  });
});
