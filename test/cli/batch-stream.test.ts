import type { ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { batchLines, ids, resultLines } from "../support/batch-script.js";
import { runBinAsync } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { heldItem } from "../support/held-item.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read\nmaxIterations: 400\n---\nBe brief.\n",
    "a.txt": "alpha\n",
  });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

/** Lets the held item finish once the first result line is on the child's standard output. */
const releaseOnFirstLine = (held: ReturnType<typeof heldItem>) => (child: ChildProcess) => {
  let out = "";
  child.stdout?.on("data", (d: Buffer | string) => {
    out += d.toString();
    if (out.includes("\n")) held.release();
  });
};

describe("agentmd batch streams: results as they finish, progress on standard error (built CLI, fake server)", () => {
  it("prints the first result while an item still runs, reads the items from standard input, and logs progress off a terminal", async () => {
    const held = heldItem("slow");
    fake = await startFakeAnthropic(held.steps(20));
    const r = await runBinAsync(["batch", "-", "--concurrency", "4"], {
      cwd: dir,
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
      input: batchLines(["slow", ...ids(20)]),
      onStart: releaseOnFirstLine(held),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(held.releasedBy).toBe("test");
    const out = resultLines(r.stdout);
    expect(out).toHaveLength(21);
    expect(out[0]?.id).not.toBe("slow");
    expect(out.find((l) => l.id === "slow")).toMatchObject({ outcome: "done", text: "answer to slow" });
    // Progress lines go to standard error (every 5% here), never among the results.
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("progress: "));
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress.at(-1)).toMatch(
      /^progress: 21\/21 · 0 failed · 0 running · 0 waiting · [\d.k]+ tokens · \$\d+\.\d\d · ETA 0s$/,
    );
    expect(
      progress.some((l) => / \d+ running · \d+ waiting · .* · \$\d+\.\d\d of ~\$\d+\.\d\d · ETA /.test(l)),
    ).toBe(true);
    expect(r.stderr).toMatch(/batch stdin: 21 done, 0 failed of 21/);
  }, 60_000);
});
