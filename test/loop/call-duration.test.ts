import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRunner } from "../../src/index.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { calls, text, use } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Write\n---\nx\n",
    ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Write"] } }),
  });
});
afterEach(async () => {
  vi.useRealTimers();
  await fake?.close();
  fake = undefined;
  cleanup();
});

describe("a call's duration", () => {
  it("leaves out the time a user took to answer its approval question", async () => {
    fake = await startFakeAnthropic([
      calls(use("Write", { file_path: "b.txt", content: "x" }, "w1")),
      text("ok"),
    ]);
    // Only the clock the loop measures with is faked: the user "takes" a minute to answer.
    vi.useFakeTimers({ toFake: ["performance"] });
    const runner = await createRunner({
      projectDir: dir,
      env: {},
      userDir: false,
      model: { apiKey: "k", baseURL: fake.url, maxRetries: 0 },
      backoff: () => 0,
      permissions: {
        approve: async () => {
          vi.advanceTimersByTime(60_000);
          return { kind: "once" };
        },
      },
    });
    const { events, result } = await drain(runner.run("go"));
    await runner.close();
    expect(result.outcome).toBe("done");
    const [end] = ofType(events, "tool_end");
    expect(end?.decision).toBe("allowed");
    expect(end?.ms).toBeLessThan(60_000);
    expect(end?.ms).toBeGreaterThanOrEqual(0);
  });
});
