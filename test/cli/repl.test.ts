import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { inTerminal, screenOf } from "../support/terminal.js";
import { writeFiles } from "../support/tools.js";
import { until } from "../support/until.js";

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

describe("the conversation's own commands", () => {
  it("/cost, /model, /compact, /clear and /resume; what was typed is kept in ~/.agentmd/history", async () => {
    fake = await startFakeAnthropic([
      text("noted"),
      text("it was 42"),
      text("The user asked to remember 42."),
      text("still 42"),
      text("fresh answer"),
    ]);
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "remember 42\r" },
        { type: "expect", text: "— done" },
        { type: "send", text: "/cost\r" },
        { type: "expect", text: "this conversation: 1 turn" },
        { type: "send", text: "/model haiku\r" },
        { type: "expect", text: "model: claude-haiku-5-5" },
        { type: "send", text: "what number?\r" },
        { type: "expect", text: "it was 42" },
        { type: "send", text: "/compact\r" },
        { type: "expect", text: "became a summary" },
        { type: "send", text: "and now?\r" },
        { type: "expect", text: "still 42" },
        { type: "send", text: "/clear\r" },
        { type: "expect", text: "a new conversation starts" },
        { type: "send", text: "fresh start\r" },
        { type: "expect", text: "fresh answer" },
        { type: "send", text: "/resume\r" },
        { type: "expect", text: "remember 42" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(r.code).toBe(0);
    const body = (i: number) => fake.requests[i]?.body;
    expect(body(1)?.model).toBe("claude-haiku-5-5");
    expect(JSON.stringify(body(1)?.messages)).toContain("remember 42");
    // after /compact, the conversation goes on from the summary alone
    const afterCompact = JSON.stringify(body(3)?.messages);
    expect(afterCompact).toContain("The user asked to remember 42.");
    expect(afterCompact).not.toContain("what number?");
    // after /clear, a new conversation: one message
    expect(body(4)?.messages).toHaveLength(1);
    const history = readFileSync(path.join(dir, ".agentmd", "history"), "utf8").split("\n");
    expect(history).toEqual(expect.arrayContaining(["remember 42", "/cost", "/model haiku", "/exit"]));
  });
});

describe("approvals and progress in a terminal", () => {
  it("asks before a call that is not pre-approved, naming the subagent that makes it; y runs it, n with a reason tells the model", async () => {
    rmSync(path.join(dir, "agent.md"));
    writeFiles(dir, {
      ".claude/agents/builder.md":
        "---\nname: builder\ndescription: Builds things.\ntools: Bash\n---\nBuild.\n",
    });
    fake = await startFakeAnthropic([
      call("Bash", { command: "touch made" }),
      call("Task", { subagent_type: "builder", description: "build", prompt: "build it" }),
      call("Bash", { command: "touch sub" }),
      text("could not"),
      text("done"),
    ]);
    const r = await inTerminal(
      [
        { type: "expect", text: "› " },
        { type: "send", text: "make things\r" },
        { type: "expect", text: "wants to run Bash: touch made" },
        { type: "expect", text: "a  always: Bash(touch:*) for this session" },
        // One key answers: no Enter.
        { type: "send", text: "y" },
        { type: "expect", text: "the subagent builder wants to run Bash: touch sub" },
        { type: "send", text: "n" },
        { type: "expect", text: "why? (the model is told" },
        { type: "send", text: "not in this folder\r" },
        { type: "expect", text: "— done" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir },
    );
    expect(r.missing, r.output).toBeUndefined();
    expect(existsSync(path.join(dir, "made"))).toBe(true);
    expect(existsSync(path.join(dir, "sub"))).toBe(false);
    expect(resultText(resultsSent(fake, 3)[0])).toContain("not in this folder");
  });

  it("shows a spinner with the time while the model and a command work, with the command's last line, and never erases printed text", async () => {
    writeFiles(dir, {
      "agent.md": "---\nname: helper\nallowed-tools: Bash\n---\nHelp.\n",
      // A command that prints a line, then waits (20 s at most) until the test has seen the status
      // line show it.
      "slow.sh":
        "#!/bin/sh\necho step-one\nfor i in $(seq 400); do [ -e go ] && break; sleep 0.05; done\necho step-two\n",
    });
    chmodSync(path.join(dir, "slow.sh"), 0o755);
    // The model answers once the test has seen the status line wait for it.
    const seen = path.join(dir, "seen-waiting");
    const waitingSeen = until(() => existsSync(seen), {
      what: "the status line's wait",
      timeoutMs: 60_000,
    }).catch(() => undefined);
    fake = await startFakeAnthropic([
      {
        kind: "message",
        heldUntil: waitingSeen,
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", name: "Bash", input: { command: "./slow.sh" } },
        ],
      },
      text("All done."),
    ]);
    const r = await inTerminal(
      [
        { type: "expect", text: "›" },
        { type: "send", text: "check\r" },
        { type: "expect", text: "waiting for the model · " },
        { type: "touch", path: seen },
        { type: "expect", text: "running Bash · " },
        { type: "expect", text: "· step-one" },
        { type: "touch", path: path.join(dir, "go") },
        { type: "expect", text: "All done." },
        { type: "expect", text: "— done" },
        { type: "send", text: "/exit\r" },
      ],
      dir,
      { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir, NO_COLOR: "" },
    );
    expect(r.missing, r.output).toBeUndefined();
    // What the terminal shows at the end: the model's text, the tool line and the answer, in
    // order; no status line left behind.
    const screen = screenOf(r.output).map((l) => l.trimEnd());
    const at = (re: RegExp) => screen.findIndex((l) => re.test(l));
    expect(at(/^Let me check\.$/)).toBeGreaterThan(-1);
    expect(at(/^⏺ Bash \.\/slow\.sh → ok/)).toBeGreaterThan(at(/^Let me check\.$/));
    expect(at(/^All done\.$/)).toBeGreaterThan(at(/^⏺ Bash/));
    expect(screen.filter((l) => /waiting for the model|running Bash/.test(l))).toEqual([]);
  });
});
