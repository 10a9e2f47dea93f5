import path from "node:path";
import { expect, it } from "vitest";
import { createRunner } from "../src/invocation/runner.js";
import { type ScriptStep, startFakeAnthropic } from "../test/support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../test/support/fixtures.js";

/**
 * Records demo/session.jsonl again: `npm run demo:record`. The session runs through the real
 * runner and real tools against the scripted fake server (the machines this project is built on
 * reach no model API). Run it after changing the example agents, then commit the recording.
 */
const DEMO = path.join(REPO_ROOT, "demo/session.jsonl");
const DEMO_INPUT = "/tour how changes get reviewed";
const MODEL = "claude-sonnet-5-5";
const say = (text: string) => ({ type: "text" as const, text });
const use = (name: string, input: unknown) => ({ type: "tool_use" as const, name, input });
const turn = (
  usage: Record<string, number>,
  ...content: ReturnType<typeof say | typeof use>[]
): ScriptStep => ({
  kind: "message",
  model: MODEL,
  usage,
  content,
});

// The requests arrive in this order: the main run's, then its subagent's (while the Task call
// waits), then the main run's again.
const SCRIPT: ScriptStep[] = [
  turn(
    { input_tokens: 1630, output_tokens: 118, cache_creation_input_tokens: 1490 },
    say("I'll read the definitions side by side.\n"),
    use("Read", { file_path: "agent.md" }),
    use("Read", { file_path: "agents/reviewer.md" }),
    use("Grep", { pattern: "allowed-tools", path: "skills" }),
  ),
  turn(
    {
      input_tokens: 610,
      output_tokens: 74,
      cache_read_input_tokens: 1490,
      cache_creation_input_tokens: 1210,
    },
    say("Now I'll ask the reviewer to look at its own setup.\n"),
    use("Task", {
      description: "Review the reviewer",
      prompt:
        "Review how agents/reviewer.md is set up: its tools and what it can and cannot do. Clean up any build output you find first.",
      subagent_type: "reviewer",
    }),
  ),
  turn(
    { input_tokens: 520, output_tokens: 41 },
    say("First, the build output.\n"),
    use("Bash", { command: "rm -rf build" }),
  ),
  turn(
    { input_tokens: 640, output_tokens: 96 },
    say(
      "I cannot delete anything: my Bash is limited to `git diff`. The setup is sound: Read, Grep, Glob and `git diff` only, " +
        "so I can look at any change but never alter the repository or run other commands.",
    ),
  ),
  turn(
    { input_tokens: 330, output_tokens: 52, cache_read_input_tokens: 2700 },
    say("Next, the release-notes skill.\n"),
    use("Skill", { skill: "release-notes", args: "v0.1.0" }),
  ),
  turn(
    { input_tokens: 420, output_tokens: 61, cache_read_input_tokens: 2700, cache_creation_input_tokens: 380 },
    say("The skill lays its notes out from a template; here it is. And the push you asked for:\n"),
    use("Read", { file_path: "skills/release-notes/template.md" }),
    use("Bash", { command: "git push origin main" }),
  ),
  turn(
    { input_tokens: 240, output_tokens: 204, cache_read_input_tokens: 3080 },
    say(
      [
        "Here is the tour.",
        "",
        "- **repo-guide** (agent.md) answers questions about the code: it reads and searches, looks at git history,",
        "  hands reviews to a subagent and uses one skill. `git push` is on its deny list.",
        "- **reviewer** (agents/reviewer.md) reviews read-only. Asked to delete build output, it could not: its",
        "  Bash is `git diff` only, and a subagent never gets more than its caller.",
        "- **release-notes** (skills/release-notes/) drafts notes from `git log` after the layout in template.md.",
        "  Loading it narrowed my own tools to Read and git log/diff for the rest of this turn.",
        "",
        "I could not push: `git push` is denied by agent.md (`Bash(git push:*)`), even though this command",
        "listed it. Push from your own shell to publish the branch.",
      ].join("\n"),
    ),
  ),
];

it("records the demo session", async () => {
  const fake = await startFakeAnthropic(SCRIPT);
  const t = tempDir();
  try {
    const runner = createRunner({
      projectDir: REPO_ROOT,
      env: {},
      model: { apiKey: "demo", baseURL: fake.url, record: DEMO },
      transcript: { dir: t.dir },
    });
    const handle = runner.run(DEMO_INPUT);
    for await (const _ of handle) {
      // drain
    }
    expect((await handle.result()).outcome).toBe("done");
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    await fake.close();
    t.cleanup();
  }
});
