import { existsSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import type { HookReply } from "../../src/loop/hooks.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

// The list allows `echo` and nothing else; a command outside it would leave a file behind.
const COMMANDS = ["echo ok", "touch made-a", "echo hi; touch made-b", "touch made-c && echo x"];
const allowed = (command: string) => command === "echo ok";

const reply = fc.record(
  {
    permissionDecision: fc.constantFrom("allow", "ask", "deny", "approve", "nonsense"),
    updatedInput: fc.constantFrom(...COMMANDS).map((command) => ({ command })),
    decision: fc.constantFrom("approve", "allow", "block", undefined),
    continue: fc.boolean(),
    short: fc.constantFrom({ allow: true }, {}, { ask: "why" }),
  },
  { requiredKeys: [] },
);

let fake: FakeAnthropic;
let dir: string;
let cleanup: () => void;
beforeAll(async () => {
  fake = await startFakeAnthropic([]);
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Bash(echo *)\n---\nx" });
});
afterAll(async () => {
  await fake.close();
  cleanup();
});

describe("no hook output widens a decision", () => {
  it("whatever a PreToolUse hook answers, only a command the list allows runs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...COMMANDS), reply, async (command, r) => {
        fake.push(call("Bash", { command }), text("done"));
        const { short, ...json } = r;
        const answer: HookReply = {
          ...short,
          ...(json.decision !== undefined && { decision: json.decision }),
          ...(json.continue === false && { continue: false }),
          hookSpecificOutput: {
            ...(json.permissionDecision !== undefined && { permissionDecision: json.permissionDecision }),
            ...(json.updatedInput !== undefined && { updatedInput: json.updatedInput }),
          },
        };
        const runner = createRunner({
          projectDir: dir,
          env: { PATH: process.env.PATH ?? "" },
          model: { apiKey: "k", baseURL: fake.url },
          transcript: { enabled: false },
          hooks: { PreToolUse: [{ run: () => answer }] },
        });
        const { events } = await drain(runner.run("go"));
        await runner.close();
        const end = events.find((e) => e.type === "tool_end") as Extract<RunEvent, { type: "tool_end" }>;
        const ran = json.updatedInput?.command ?? command;
        if (end.decision === "allowed") expect(allowed(ran)).toBe(true);
        expect(readdirSync(dir).filter((f) => f.startsWith("made-"))).toEqual([]);
        expect(existsSync(dir)).toBe(true);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
