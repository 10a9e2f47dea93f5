import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { it } from "../support/fixture.js";
import { call, text } from "../support/script.js";
import { trustProject } from "../support/trust.js";

// Every entry point fires the same events: one real hook script logs what each event was given.
const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionEnd",
];
const LOG = `#!/usr/bin/env bash\n{ cat; echo; } >> "$CLAUDE_PROJECT_DIR/log.jsonl"\n`;

function hookProject(
  project: (files: Record<string, string>) => string,
  extra: Record<string, string> = {},
): string {
  const hooks = Object.fromEntries(
    EVENTS.map((e) => [e, [{ hooks: [{ type: "command", command: 'bash "$CLAUDE_PROJECT_DIR"/log.sh' }] }]]),
  );
  const dir = project({
    "agent.md": "---\nallowed-tools: Bash(echo *), Task\n---\nYou are the main agent.",
    "agents/helper.md": "---\nname: helper\ndescription: helps\ntools: Bash(echo *)\n---\nYou help.",
    ".claude/settings.json": JSON.stringify({ hooks }),
    "log.sh": LOG,
    ...extra,
  });
  trustProject(dir);
  return dir;
}

const logOf = (dir: string) =>
  readFileSync(path.join(dir, "log.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const brief = (p: Record<string, unknown>) =>
  [p.hook_event_name, p.source ?? p.reason ?? p.agent_type ?? p.tool_name ?? p.prompt].join(" ");

describe("hooks fire the same way in every entry point", () => {
  it("-p: the session's start, the prompt, the calls, the stop and the end", async ({
    dir,
    fake,
    cli,
    project,
  }) => {
    hookProject(project);
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const r = await cli(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(logOf(dir).map(brief)).toEqual([
      "SessionStart startup",
      "UserPromptSubmit go",
      "PreToolUse Bash",
      "PostToolUse Bash",
      "Stop ",
      "SessionEnd other",
    ]);
  });

  it("run: inside a subagent too, SubagentStart and SubagentStop around its run", async ({
    dir,
    fake,
    cli,
    project,
  }) => {
    hookProject(project);
    fake.push(
      call("Task", { description: "d", prompt: "help", subagent_type: "helper" }),
      call("Bash", { command: "echo sub" }),
      text("sub done"),
      text("done"),
    );
    const r = await cli(["run", "go"]);
    expect(r.code).toBe(0);
    expect(logOf(dir).map(brief)).toEqual([
      "SessionStart startup",
      "UserPromptSubmit go",
      "PreToolUse Task",
      "SubagentStart helper",
      "PreToolUse Bash",
      "PostToolUse Bash",
      "SubagentStop helper",
      "PostToolUse Task",
      "Stop ",
      "SessionEnd other",
    ]);
  });

  it("chat: each prompt is judged; /clear ends the session and the next starts as clear; leaving ends it", async ({
    dir,
    fake,
    cli,
    project,
  }) => {
    hookProject(project);
    fake.push(text("one"), text("two"));
    const r = await cli(["chat"], { input: "hello\n/clear\nagain\n" });
    expect(r.code).toBe(0);
    expect(logOf(dir).map(brief)).toEqual([
      "SessionStart startup",
      "UserPromptSubmit hello",
      "Stop ",
      "SessionEnd clear",
      "SessionStart clear",
      "UserPromptSubmit again",
      "Stop ",
      "SessionEnd prompt_input_exit",
    ]);
  });

  it("batch: each item is a session of its own, from its start to its end", async ({
    dir,
    fake,
    cli,
    project,
  }) => {
    hookProject(project, {
      "two.jsonl": ["a", "b"].map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join("\n"),
    });
    fake.push(text("one"), text("two"));
    const r = await cli(["batch", "two.jsonl", "--concurrency", "1"]);
    expect(r.code).toBe(0);
    const log = logOf(dir);
    expect(log.map(brief)).toEqual([
      "SessionStart startup",
      "UserPromptSubmit item a",
      "Stop ",
      "SessionEnd other",
      "SessionStart startup",
      "UserPromptSubmit item b",
      "Stop ",
      "SessionEnd other",
    ]);
    expect(new Set(log.map((p) => p.session_id)).size).toBe(2);
  });

  it("-p: a UserPromptSubmit hook that blocks sends no request and shows its reason", async ({
    fake,
    main,
    project,
  }) => {
    const dir = project({
      "agent.md": "---\nallowed-tools: Read\n---\nx",
      ".claude/settings.json": JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'not today' >&2; exit 2" }] }],
        },
      }),
    });
    trustProject(dir);
    const r = await main(["-p", "go"]);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("not today");
    expect(fake.requests).toHaveLength(0);
  });
});
