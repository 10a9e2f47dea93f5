import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "a.txt": "alpha\n" });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

describe("the library surface: definitions as objects", () => {
  it("runs a main agent and a subagent given in code, with the same allow-list rules as files", async () => {
    fake = await startFakeAnthropic([
      {
        kind: "message",
        content: [
          {
            type: "tool_use",
            name: "Task",
            input: { description: "d", prompt: "read", subagent_type: "reader" },
          },
        ],
      },
      { kind: "message", content: [{ type: "text", text: "child answer" }] },
      { kind: "message", content: [{ type: "text", text: "parent answer" }] },
    ]);
    const runner = createRunner({
      cwd: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      main: { name: "coder", "allowed-tools": "Read, Bash(git:*), Task(reader)", body: "You code." },
      agents: [{ name: "reader", description: "Reads.", tools: ["Read", "Write"], body: "You read." }],
    });
    expect((await drain(runner.run("go"))).result).toMatchObject({ outcome: "done", text: "parent answer" });
    expect((fake.requests[1]?.body.tools ?? []).map((t) => (t as { name: string }).name)).toEqual(["Read"]);
    expect(fake.requests[1]?.body.system).toEqual([
      { type: "text", text: "You read.", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("refuses definitions in code with the same diagnostics as files (and the types refuse them first)", () => {
    expect(() =>
      createRunner({
        cwd: dir,
        env: {},
        model: { apiKey: "k" },
        // @ts-expect-error: a misspelled list key does not type-check
        agents: [{ name: "x", description: "d", allowedTools: "Read" }],
      }),
    ).toThrow(/unknown key 'allowedTools'; did you mean 'allowed-tools'\?.*\[misspelled-list-key\]/);
  });

  it("invokes commands and skills as the REPL does", async () => {
    fake = await startFakeAnthropic([{ kind: "message", content: [{ type: "text", text: "hello Ada" }] }]);
    const runner = createRunner({
      cwd: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      commands: [{ name: "greet", description: "Greets", body: "Greet $1 warmly." }],
    });
    expect(runner.slashNames()).toEqual(["greet"]);
    expect((await drain(runner.invoke("/greet Ada"))).result).toMatchObject({ outcome: "done" });
    expect(fake.requests[0]?.body.messages[0]?.content).toEqual([
      { type: "text", text: "Greet Ada warmly.", cache_control: { type: "ephemeral" } },
    ]);
  });
});
