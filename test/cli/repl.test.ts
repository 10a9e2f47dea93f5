import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

type Action =
  | { type: "expect"; text: string; timeout?: number }
  | { type: "send"; text: string }
  | { type: "sleep"; seconds: number };

/** Drives `agentmd chat` in a pseudo-terminal, as a person at a keyboard would. */
function inTerminal(actions: Action[], cwd: string, env: Record<string, string>) {
  return new Promise<{ ok: boolean; output: string; code: number | null; missing?: string }>(
    (resolve, reject) => {
      const child = spawn(
        "python3",
        [
          path.join(REPO_ROOT, "test/support/pty-run.py"),
          JSON.stringify(actions),
          process.execPath,
          path.join(REPO_ROOT, "bin/agentmd.js"),
          "chat",
        ],
        { cwd, env: { PATH: process.env.PATH ?? "", TERM: "xterm", NO_COLOR: "1", ...env } },
      );
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", () => resolve(JSON.parse(out)));
    },
  );
}

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nname: helper\nallowed-tools: Read\n---\nHelp.\n",
    "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews things.\ntools: Read\n---\nx\n",
    "commands/hello.md": "Say hello to $ARGUMENTS.\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

describe("agentmd chat in a terminal", () => {
  it("streams a reply, runs /commands, lists agents, stops a turn on Ctrl-C, and leaves on /exit", async () => {
    fake = await startFakeAnthropic([
      { kind: "message", content: [{ type: "text", text: "Hello from the model." }] },
      { kind: "message", content: [{ type: "text", text: "Hello, Ada!" }] },
      { kind: "hang", before: [{ type: "text", text: "Thinking very slowly" }] },
    ]);
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "hi there\r" },
        { type: "expect", text: "Hello from the model." },
        { type: "expect", text: "— done · 1 turn" },
        { type: "send", text: "/agents\r" },
        { type: "expect", text: "reviewer" },
        { type: "send", text: "/hello Ada\r" },
        { type: "expect", text: "Hello, Ada!" },
        { type: "send", text: "go slowly\r" },
        { type: "expect", text: "Thinking very slowly" },
        { type: "send", text: "\x03" },
        { type: "expect", text: "stopping this turn" },
        { type: "expect", text: "— aborted" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(r.ok).toBe(true);
    expect(r.code).toBe(0);
    expect(fake.requests[1]?.body.messages.at(-1)?.content).toEqual([
      { type: "text", text: "Say hello to Ada.", cache_control: { type: "ephemeral" } },
    ]);
    expect(fake.requests[1]?.body.messages).toHaveLength(3);
  });

  it("completes /names with Tab", async () => {
    fake = await startFakeAnthropic([]);
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "/hel\t\t" },
        { type: "sleep", seconds: 0.3 },
        { type: "send", text: "\x15/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
    );
    expect(r.ok).toBe(true);
    expect(r.output).toContain("/hello");
    expect(r.output).toContain("/help");
  });
});
