import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { MessageParam } from "../../src/model/messages.js";
import type { FakeAnthropic } from "../support/fake-anthropic.js";
import { it } from "../support/fixture.js";
import { drain } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";

/**
 * One real hook script for every event: it logs its stdin to log.jsonl and answers as Claude
 * Code's hooks do (plain stdout, JSON, exit 2).
 */
const HOOK = `
const fs = require("node:fs");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const p = JSON.parse(input);
  fs.appendFileSync(process.env.CLAUDE_PROJECT_DIR + "/log.jsonl", JSON.stringify(p) + "\\n");
  const say = (o) => process.stdout.write(JSON.stringify(o));
  switch (p.hook_event_name) {
    case "SessionStart": process.stdout.write("The codeword is PLUM."); break;
    case "UserPromptSubmit":
      if (p.prompt.includes("secret")) { process.stderr.write("no secrets here"); process.exit(2); }
      say({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "Prompt context: TEA" } });
      break;
    case "SubagentStart": say({ hookSpecificOutput: { additionalContext: "Subagent context: FIG" } }); break;
    case "PostToolUse": say({ hookSpecificOutput: { additionalContext: "post note: " + p.tool_input.command } }); break;
    case "Stop": if (!p.stop_hook_active) say({ decision: "block", reason: "run the tests first" }); break;
  }
});
`;

const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionEnd",
  "PreCompact",
];

function hookProject(project: (files: Record<string, string>) => string): string {
  const hooks = Object.fromEntries(
    EVENTS.map((e) => [e, [{ hooks: [{ type: "command", command: 'node "$CLAUDE_PROJECT_DIR"/hook.js' }] }]]),
  );
  return project({
    "agent.md": "---\nallowed-tools: Bash(echo *), Task\n---\nYou are the main agent.",
    "agents/helper.md": "---\nname: helper\ndescription: helps\ntools: Bash(echo *)\n---\nYou help.",
    ".claude/settings.json": JSON.stringify({ hooks }),
    "hook.js": HOOK,
  });
}

const logOf = (dir: string): Record<string, unknown>[] =>
  existsSync(path.join(dir, "log.jsonl"))
    ? readFileSync(path.join(dir, "log.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
    : [];

const textOf = (m: MessageParam | undefined): string =>
  typeof m?.content === "string"
    ? m.content
    : (m?.content ?? []).map((b) => ("text" in b ? b.text : "")).join("\n");

const lastMessage = (fake: FakeAnthropic, i: number) =>
  fake.requests[i]?.body.messages.at(-1) as MessageParam;

describe("hooks at every step of a session, inside subagents too", () => {
  it("fires each event with Claude Code's fields, and acts on what the hooks answer", async ({
    dir,
    fake,
    project,
  }) => {
    hookProject(project);
    let logAtParentsNext: string[] = [];
    fake.push(
      call("Task", { description: "d", prompt: "help me", subagent_type: "helper" }, "t1"),
      call("Bash", { command: "echo sub" }, "b1"),
      text("sub done"),
      (_req) => {
        // The parent's next request: the subagent has stopped, and SubagentStop has fired.
        logAtParentsNext = logOf(dir).map((p) => String(p.hook_event_name));
        return call("Bash", { command: "echo main" }, "b2");
      },
      text("done"),
      text("really done"),
    );
    const runner = createRunner({
      projectDir: dir,
      env: { PATH: process.env.PATH ?? "" },
      model: { apiKey: "k", baseURL: fake.url },
    });
    const first = await drain(runner.run("go"));
    expect(first.result.outcome).toBe("done");
    expect(first.result.text).toBe("really done");

    // SessionStart's stdout and UserPromptSubmit's additionalContext reach the model beside the prompt.
    const prompt = textOf(fake.requests[0]?.body.messages[0] as MessageParam);
    expect(prompt).toContain("The codeword is PLUM.");
    expect(prompt).toContain("Prompt context: TEA");
    expect(prompt).toContain("go");
    // SubagentStart's context reaches the subagent.
    expect(textOf(fake.requests[1]?.body.messages[0] as MessageParam)).toContain("Subagent context: FIG");
    // PostToolUse's additionalContext reaches the model beside the tool result (in the subagent too).
    expect(resultText(resultsSent(fake, 2)[0])).toContain("post note: echo sub");
    // Between the subagent's last request and the parent's next: SubagentStop, then Task's PostToolUse.
    expect(logAtParentsNext.slice(-2)).toEqual(["SubagentStop", "PostToolUse"]);
    // Stop blocked once: one more request carrying its reason; the next Stop hook was told so.
    expect(fake.requests).toHaveLength(6);
    expect(textOf(lastMessage(fake, 5))).toContain("run the tests first");

    // A blocked prompt sends no request and says the reason.
    const blocked = await drain(runner.run("tell me the secret", { resume: first.result.sessionId }));
    expect(blocked.result.outcome).toBe("refused");
    expect(blocked.result.message).toContain("no secrets here");
    expect(fake.requests).toHaveLength(6);
    await runner.close();

    const log = logOf(dir);
    expect(log.map((p) => p.hook_event_name)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "SubagentStart",
      "PreToolUse",
      "PostToolUse",
      "SubagentStop",
      "PostToolUse",
      "PreToolUse",
      "PostToolUse",
      "Stop",
      "Stop",
      "UserPromptSubmit",
      "SessionEnd",
    ]);
    const transcript = path.join(dir, ".agentmd", "sessions", `${first.result.sessionId}.jsonl`);
    for (const p of log)
      expect(p).toMatchObject({
        session_id: first.result.sessionId,
        transcript_path: transcript,
        cwd: dir,
        permission_mode: "default",
      });
    expect(existsSync(transcript)).toBe(true);
    const byEvent = (e: string) => log.filter((p) => p.hook_event_name === e);
    expect(byEvent("SessionStart")[0]).toMatchObject({ source: "startup" });
    expect(byEvent("UserPromptSubmit").map((p) => p.prompt)).toEqual(["go", "tell me the secret"]);
    expect(byEvent("PreToolUse").map((p) => [p.tool_name, p.tool_use_id])).toEqual([
      ["Task", "t1"],
      ["Bash", "b1"],
      ["Bash", "b2"],
    ]);
    expect(byEvent("SubagentStart")[0]).toMatchObject({ agent_type: "helper" });
    expect(byEvent("SubagentStop")[0]).toMatchObject({ agent_type: "helper", stop_hook_active: false });
    expect(byEvent("Stop").map((p) => p.stop_hook_active)).toEqual([false, true]);
    expect(byEvent("SessionEnd")[0]).toMatchObject({ reason: "other" });
  });

  it("/compact fires PreCompact (manual), and the session it makes starts with source compact", async ({
    dir,
    fake,
    project,
  }) => {
    hookProject(project);
    fake.push(text("one"), text("one, again"), text("a summary"), text("two"), text("two, again"));
    const open = () =>
      createRunner({
        projectDir: dir,
        env: { PATH: process.env.PATH ?? "" },
        model: { apiKey: "k", baseURL: fake.url },
      });
    const a = open();
    const first = await drain(a.run("go"));
    await a.close();
    const b = open();
    const compacted = await b.compact(first.result.sessionId, { instructions: "keep the codeword" });
    expect(compacted.ok).toBe(true);
    if (!compacted.ok) return;
    await drain(b.run("more", { resume: compacted.sessionId }));
    await b.close();
    const starts = logOf(dir).filter((p) =>
      ["SessionStart", "PreCompact"].includes(String(p.hook_event_name)),
    );
    expect(starts.map((p) => [p.hook_event_name, p.source ?? p.trigger, p.custom_instructions])).toEqual([
      ["SessionStart", "startup", undefined],
      ["PreCompact", "manual", "keep the codeword"],
      ["SessionStart", "compact", undefined],
    ]);
  });

  it("fails closed: a Stop hook that fails ends the run as an error, a SessionEnd hook that fails is a warning", async ({
    dir,
    fake,
    project,
  }) => {
    project({
      "agent.md": "---\nallowed-tools: Read\n---\nx",
      ".claude/settings.json": JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: "echo broken >&2; exit 1" }] }],
          SessionEnd: [{ hooks: [{ type: "command", command: "exit 3" }] }],
        },
      }),
    });
    fake.push(text("done"));
    const runner = createRunner({
      projectDir: dir,
      env: { PATH: process.env.PATH ?? "" },
      model: { apiKey: "k", baseURL: fake.url },
    });
    const { result, events } = await drain(runner.run("go"));
    expect(result.outcome).toBe("error");
    expect(result.message).toContain("the Stop hook failed");
    expect(result.message).toContain("broken");
    expect(events.some((e) => e.type === "error" && e.code === "hook_failed")).toBe(true);
    const warnings: string[] = [];
    await runner.endSession(result.sessionId, "other", (m) => warnings.push(m));
    expect(warnings).toEqual(["SessionEnd hook 'exit 3' failed (exit 3)"]);
  });
});

describe("a PreToolUse hook narrows, never widens", () => {
  it("an updatedInput is judged by the lists again: a rewrite outside them is denied, one inside runs", async ({
    dir,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\nallowed-tools: Bash(echo *)\n---\nx" });
    fake.push(
      call("Bash", { command: "echo one" }, "a"),
      call("Bash", { command: "echo two" }, "b"),
      text("done"),
    );
    const runner = createRunner({
      projectDir: dir,
      env: { PATH: process.env.PATH ?? "" },
      model: { apiKey: "k", baseURL: fake.url },
      hooks: {
        PreToolUse: [
          {
            origin: "sdk",
            run: (p) => ({
              hookSpecificOutput: {
                permissionDecision: "allow",
                updatedInput: { command: p.tool_use_id === "a" ? "touch pwned" : "echo rewritten" },
              },
            }),
          },
        ],
      },
    });
    await drain(runner.run("go"));
    expect(resultText(resultsSent(fake, 1)[0])).toContain("rewrote this call to one the allow-lists deny");
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
    expect(resultText(resultsSent(fake, 2)[0])).toMatch(/^rewritten\n/);
  });
});
