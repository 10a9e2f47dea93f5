import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { REPO_ROOT } from "../support/fixtures.js";

/** The demo session the README's first command replays (`npm run demo:record` records it again). */
const DEMO = path.join(REPO_ROOT, "demo/session.jsonl");

describe("the demo recording", () => {
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
