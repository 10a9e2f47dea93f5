import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { REPO_ROOT } from "../support/fixtures.js";

/** The demo session the README's first command replays (`npm run demo:record` records it again). */
const DEMO = path.join(REPO_ROOT, "demo/session.jsonl");

describe("the demo recording", () => {
  it("replays offline through the built CLI: a command, a parallel batch, a subagent, a skill, denied calls", () => {
    expect(existsSync(DEMO)).toBe(true);
    const r = runBin(["run", "--replay", "demo/session.jsonl"], { cwd: REPO_ROOT });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").map((l) => l.replace(/ \(\d+ ms\)$/, ""));
    // A parallel batch: its lines come in the order the calls were made (compared sorted here).
    expect(lines.slice(1, 4).sort()).toEqual([
      "⏺ Grep allowed-tools in skills → ok",
      "⏺ Read agent.md → ok",
      "⏺ Read agents/reviewer.md → ok",
    ]);
    expect(lines).toContain("⎿ reviewer (claude-sonnet-5-5, 4 tools)");
    expect(lines).toContain(
      "  ⏺ Bash rm -rf build → denied: Bash(rm -rf build) is not allowed: this run allows Bash only for: git diff:*. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(lines.some((l) => l.startsWith("⏺ Task ") && l.endsWith("→ ok"))).toBe(true);
    expect(lines).toContain("⏺ Skill release-notes v0.1.0 → ok");
    expect(lines).toContain(
      "⏺ Bash git push origin main → denied: Bash(git push origin main) is denied by 'Bash(git push:*)' in agent.md:6. The tool was not executed.",
    );
    expect(r.stdout).toMatch(/— done · 5 turns · /);
  });
});
