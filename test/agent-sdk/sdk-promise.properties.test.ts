import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRunner } from "../../src/index.js";
import type { ApprovalAnswer } from "../../src/loop/execute-call.js";
import { startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * The SDK's options are callers, never ceilings: whatever allowedTools, permissionMode, canUseTool
 * (with updatedInput) and hook callbacks say, a command runs only if agent.md's list (when there is
 * one) allows it and no settings deny names it. The SDK's pieces reach the runner as its options
 * (permissions, approve, hooks), which is what is varied here.
 */
const WORDS = ["echo", "printf", "ls", "touch"] as const;
const command = (w: (typeof WORDS)[number]) => (w === "touch" ? "touch made" : `${w} x`);
const rule = (w: string) => `Bash(${w}:*)`;

const reply = fc.constantFrom<Record<string, unknown>>(
  {},
  { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } },
  { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } },
  { decision: "approve" },
);

const scenario = fc.record({
  agentMd: fc.option(fc.subarray([...WORDS]), { nil: undefined, freq: 1 }),
  deny: fc.subarray([...WORDS]),
  sdkAllow: fc.subarray([...WORDS]),
  mode: fc.constantFrom("default", "default", "acceptEdits", "plan", "bypassPermissions"),
  // Mostly calls that need approval (touch), so that canUseTool is asked and its changes judged.
  calls: fc.array(
    fc.oneof({ arbitrary: fc.constant("touch" as const), weight: 3 }, fc.constantFrom(...WORDS)),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
  // What canUseTool answers each time: allow as is, allow a changed command, or deny.
  answers: fc.array(fc.option(fc.constantFrom(...WORDS), { nil: undefined }), { minLength: 3, maxLength: 3 }),
  hook: reply,
});

describe("no SDK option widens agent.md or the settings", () => {
  it("a command runs only within agent.md's list and outside every settings deny", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { dir, cleanup } = tempDir();
        const fake = await startFakeAnthropic([
          ...s.calls.map((w, i) => call("Bash", { command: command(w) }, `toolu_${i}`)),
          text("done"),
        ]);
        try {
          writeFiles(dir, {
            ".claude/settings.json": JSON.stringify({ permissions: { deny: s.deny.map(rule) } }),
            ...(s.agentMd && {
              "agent.md": `---\nallowed-tools: ${[...s.agentMd.map(rule), "Read"].join(", ")}\n---\nGo.\n`,
            }),
          });
          const ran = new Map<string, string>();
          let asked = 0;
          const runner = createRunner({
            projectDir: dir,
            cwd: dir,
            env: { PATH: process.env.PATH ?? "", HOME: path.join(dir, "home") },
            userDir: false,
            model: { apiKey: "k", baseURL: fake.url, maxRetries: 0 },
            backoff: () => 0,
            permissions: {
              allow: s.sdkAllow.map(rule),
              mode: s.mode as "default",
              approve: async (req): Promise<ApprovalAnswer> => {
                const changed = s.answers[asked++ % s.answers.length];
                if (changed === undefined) return { kind: "deny", reason: "no" };
                ran.set(req.callId ?? "", command(changed));
                return { kind: "once", input: { command: command(changed) } };
              },
            },
            hooks: { PreToolUse: [{ run: () => s.hook }] },
          });
          const { events } = await drain(runner.run("go"));
          await runner.close();
          for (const end of ofType(events, "tool_end").filter((e) => e.decision === "allowed")) {
            const start = ofType(events, "tool_start").find((e) => e.id === end.id);
            const executed =
              ran.get(end.id) ?? (start?.input as { command?: string } | undefined)?.command ?? "";
            const word = executed.split(" ")[0] as (typeof WORDS)[number];
            expect(s.deny).not.toContain(word);
            if (s.agentMd) expect(s.agentMd).toContain(word);
          }
          const touchMayRun = !s.deny.includes("touch") && (!s.agentMd || s.agentMd.includes("touch"));
          if (!touchMayRun) expect(existsSync(path.join(dir, "made"))).toBe(false);
        } finally {
          await fake.close();
          cleanup();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
