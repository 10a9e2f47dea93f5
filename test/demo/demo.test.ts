import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRunner } from "../../src/loop/runner.js";
import { runBin } from "../support/cli.js";
import { type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";

/**
 * The demo session the README's first command replays. It is recorded against the scripted fake
 * server (this project's machines reach no model API), through the real runner and real tools;
 * set RECORD_DEMO=1 to record it again after changing the example agents.
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

describe("the demo recording", () => {
  it.runIf(process.env.RECORD_DEMO === "1")("is recorded again from the scripted session", async () => {
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

  it("replays offline through the built CLI: a parallel batch of reads, a denied call, the answer", () => {
    expect(existsSync(DEMO)).toBe(true);
    const r = runBin(["run", "--replay", "demo/session.jsonl"], { cwd: REPO_ROOT });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    // A parallel batch: the lines come in the order the calls finished.
    expect(
      lines
        .filter((l) => l.startsWith("⏺ Read "))
        .map((l) => l.replace(/ \(\d+ ms\)$/, ""))
        .sort(),
    ).toEqual([
      "⏺ Read agent.md → ok",
      "⏺ Read agents/reviewer.md → ok",
      "⏺ Read skills/release-notes/SKILL.md → ok",
    ]);
    expect(lines.find((l) => l.startsWith("⏺ Bash"))).toMatch(
      /^⏺ Bash git push origin main → denied: Bash\(git push origin main\) is denied by 'Bash\(git push:\*\)' in agent\.md:6\. The tool was not executed\. \(\d+ ms\)$/,
    );
    expect(r.stdout).toContain("I could not push: `git push` is on this agent's deny list");
    expect(r.stdout).toMatch(/— done · 3 turns · /);
  });
});
