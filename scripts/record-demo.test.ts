import path from "node:path";
import { expect, it } from "vitest";
import { createRunner } from "../src/loop/runner.js";
import { type ScriptStep, startFakeAnthropic } from "../test/support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../test/support/fixtures.js";

/**
 * Records demo/session.jsonl again: `npm run demo:record`. The session runs through the real
 * runner and real tools against the scripted fake server (the machines this project is built on
 * reach no model API). Run it after changing the example agents, then commit the recording.
 */
const DEMO = path.join(REPO_ROOT, "demo/session.jsonl");
const DEMO_PROMPT =
  "What does this repository's main agent do, and who reviews changes? Then push the current branch.";

const MODEL = "claude-sonnet-5-5";
const SCRIPT: ScriptStep[] = [
  {
    kind: "message",
    model: MODEL,
    usage: { input_tokens: 1480, output_tokens: 96, cache_creation_input_tokens: 1320 },
    content: [
      { type: "text", text: "I'll read the agent definitions side by side.\n" },
      { type: "tool_use", name: "Read", input: { file_path: "agent.md" } },
      { type: "tool_use", name: "Read", input: { file_path: "agents/reviewer.md" } },
      { type: "tool_use", name: "Read", input: { file_path: "skills/release-notes/SKILL.md" } },
    ],
  },
  {
    kind: "message",
    model: MODEL,
    usage: {
      input_tokens: 420,
      output_tokens: 41,
      cache_read_input_tokens: 1320,
      cache_creation_input_tokens: 980,
    },
    content: [
      { type: "text", text: "Now the push you asked for.\n" },
      { type: "tool_use", name: "Bash", input: { command: "git push origin main" } },
    ],
  },
  {
    kind: "message",
    model: MODEL,
    usage: { input_tokens: 160, output_tokens: 187, cache_read_input_tokens: 2300 },
    content: [
      {
        type: "text",
        text: [
          "Here is what I found.",
          "",
          "- **repo-guide** (agent.md) answers questions about this repository. It may read, search and look at",
          "  git history (`git status`, `git log`, `git diff`), hand reviews to a subagent, and use one skill.",
          "- **reviewer** (agents/reviewer.md) reviews changes read-only: Read, Grep, Glob and `git diff` only.",
          "- **release-notes** (skills/release-notes/) drafts release notes from `git log`.",
          "",
          "I could not push: `git push` is on this agent's deny list (`Bash(git push:*)`), so the call was refused",
          "before it ran. Push from your own shell if you want the branch published.",
        ].join("\n"),
      },
    ],
  },
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
    const handle = runner.run(DEMO_PROMPT);
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
