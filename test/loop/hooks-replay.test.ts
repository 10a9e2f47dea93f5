import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const readTwice = [
  {
    kind: "message" as const,
    content: [{ type: "tool_use" as const, id: "r1", name: "Read", input: { file_path: "a.txt" } }],
  },
  {
    kind: "message" as const,
    content: [{ type: "tool_use" as const, id: "r2", name: "Bash", input: { command: "echo harmless" } }],
  },
  { kind: "message" as const, content: [{ type: "text" as const, text: "All done." }] },
];

describe("hooks", () => {
  it("runs PreToolUse command hooks with the call on stdin; exit 2 blocks with stderr; a failing hook blocks too", async () => {
    writeFiles(dir, {
      "agent.md": [
        "---",
        "allowed-tools: Read, Bash",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Read",
        '      command: cat > hook-input.json; echo "no reading today" 1>&2; exit 2',
        "    - matcher: Bash",
        "      command: exit 1",
        "---",
        "x",
      ].join("\n"),
      "a.txt": "alpha",
    });
    fake = await startFakeAnthropic(readTwice);
    const runner = createRunner({
      projectDir: dir,
      env: { PATH: process.env.PATH ?? "" },
      model: { apiKey: "k", baseURL: fake.url },
    });
    const { events } = await drain(runner.run("go"));
    const payload = JSON.parse(readFileSync(path.join(dir, "hook-input.json"), "utf8"));
    expect(payload).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Read",
      tool_input: { file_path: "a.txt" },
      cwd: dir,
    });
    const ends = events.filter((e) => e.type === "tool_end") as Extract<RunEvent, { type: "tool_end" }>[];
    expect(ends.map((e) => [e.name, e.decision, e.content])).toEqual([
      ["Read", "blocked-by-hook", "Blocked by a PreToolUse hook: no reading today"],
      [
        "Bash",
        "blocked-by-hook",
        "Blocked by a PreToolUse hook: hook 'exit 1' failed (exit 1); a PreToolUse hook that fails blocks the call",
      ],
    ]);
  });

  it("never lets a hook allow what the allow-list denies, and accepts hooks as functions", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Bash(git:*)\n---\nx", "a.txt": "alpha" });
    fake = await startFakeAnthropic(readTwice);
    const seen: string[] = [];
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      hooks: {
        PreToolUse: [{ run: (p) => void seen.push(`pre:${p.tool_name}`) }],
        PostToolUse: [
          { matcher: "Read", run: (p) => void seen.push(`post:${p.tool_name}:${p.tool_response?.is_error}`) },
        ],
      },
    });
    const { events } = await drain(runner.run("go"));
    expect(seen).toEqual(["pre:Read", "post:Read:false"]);
    const bash = events.find((e) => e.type === "tool_end" && e.name === "Bash") as Extract<
      RunEvent,
      { type: "tool_end" }
    >;
    expect(bash.decision).toBe("denied");
  });
});

describe("hooks and the run's abort", () => {
  it("a function hook that never settles is abandoned on abort: the call is interrupted, the run ends", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nx", "a.txt": "alpha" });
    fake = await startFakeAnthropic(readTwice);
    const ac = new AbortController();
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      hooks: {
        PreToolUse: [
          {
            run: () => {
              ac.abort();
              return new Promise<undefined>(() => {});
            },
          },
        ],
      },
    });
    const { events, result } = await drain(runner.run("go", { signal: ac.signal }));
    expect(result.outcome).toBe("aborted");
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({
      name: "Read",
      decision: "interrupted",
    });
  });
});

describe("hooks see the commands and files of skill and command bodies too", () => {
  it("a PreToolUse hook blocks a !`cmd` of a model-invoked skill, as it blocks the same Bash call", async () => {
    writeFiles(dir, {
      "agent.md": [
        "---",
        "allowed-tools: Bash, Skill",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Bash",
        "      command: echo 'no Bash at all' >&2; exit 2",
        "---",
        "x",
      ].join("\n"),
      "skills/note/SKILL.md": "---\nname: note\ndescription: Notes.\n---\nResult: !`touch $1`\n",
    });
    fake = await startFakeAnthropic([
      {
        kind: "message",
        content: [{ type: "tool_use", name: "Skill", input: { skill: "note", args: "made-by-skill" } }],
      },
      { kind: "message", content: [{ type: "text", text: "done" }] },
    ]);
    const runner = createRunner({
      projectDir: dir,
      env: { PATH: process.env.PATH ?? "" },
      model: { apiKey: "k", baseURL: fake.url },
    });
    const { events } = await drain(runner.run("go"));
    const skill = events.find((e) => e.type === "tool_end" && e.name === "Skill") as Extract<
      RunEvent,
      { type: "tool_end" }
    >;
    expect([skill.isError, skill.content]).toEqual([
      true,
      "the skill 'note': the command !`touch made-by-skill` was not run: blocked by a PreToolUse hook: no Bash at all",
    ]);
    expect(existsSync(path.join(dir, "made-by-skill"))).toBe(false);
  });
});

describe("record and replay", () => {
  it("records every exchange, replays it offline with tools really executing, and reports a departure", async () => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Bash(git:*)\n---\nx", "a.txt": "alpha" });
    fake = await startFakeAnthropic(readTwice);
    const recording = path.join(dir, "rec.jsonl");
    const live = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url, record: recording },
    });
    const first = await drain(live.run("go"));
    expect(first.result.text).toBe("All done.");
    const lines = readFileSync(recording, "utf8").trim().split("\n");
    expect(lines.map((l) => Object.keys(JSON.parse(l))[0])).toEqual([
      "input",
      "request",
      "request",
      "request",
    ]);
    await fake.close();

    writeFiles(dir, { "a.txt": "changed on this machine" });
    const replay = createRunner({ projectDir: dir, env: {}, model: { replay: recording } });
    const again = await drain(replay.run("go"));
    expect(again.result.text).toBe("All done.");
    const read = again.events.find((e) => e.type === "tool_end" && e.name === "Read") as Extract<
      RunEvent,
      { type: "tool_end" }
    >;
    expect(read.content).toBe("     1\tchanged on this machine");
    expect(
      again.events.some((e) => e.type === "warning" && e.message.includes("differ from the recording")),
    ).toBe(true);

    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Grep, Bash(git:*)\n---\nx" });
    const departed = createRunner({ projectDir: dir, env: {}, model: { replay: recording } });
    const third = await drain(departed.run("go"));
    expect(third.result.outcome).toBe("error");
    const err = third.events.find((e) => e.type === "error") as { message: string };
    expect(err.message).toBe(
      "the run departs from the recording at request 1: a different set of tools offered (+Grep)",
    );
  });

  it("says plainly what to do when there is no key and no recording", () => {
    expect(() => createRunner({ projectDir: dir, env: {} })).toThrow(
      "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or answer offline from a recording with --replay FILE (one made with --record FILE; agentmd's own demo is in a clone of its repository: npx agentmd run --replay demo/session.jsonl)",
    );
  });
});
