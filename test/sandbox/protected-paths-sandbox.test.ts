import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { runSandboxTests } from "../support/sandbox.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * The files that define runs, as a run meets them: a Write names them or it is refused, and inside
 * the sandbox a command cannot rewrite them either, so no run can change the next call's hook.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const GUARD = "#!/bin/sh\nexit 0\n";
const project = (allowed: string) =>
  writeFiles(dir, {
    "agent.md": `---\nallowed-tools: ${allowed}\n---\nMain.\n`,
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: "NotebookRead", hooks: [{ type: "command", command: "sh .claude/hooks/guard.sh" }] },
        ],
      },
    }),
    ".claude/hooks/guard.sh": GUARD,
    ".git/hooks/.keep": "",
    "src/.keep": "",
  });
const run = (args: string[]) =>
  runCli(["run", "--output", "stream-json", ...args], {
    cwd: dir,
    env: {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: (fake as FakeAnthropic).url,
      HOME: path.join(dir, "home"),
      PATH: process.env.PATH ?? "",
    },
  });
const told = (i: number) => resultText(resultsSent(fake as FakeAnthropic, i)[0]);

describe("protected paths through the CLI", () => {
  it("refuses a Write to the settings under a bare Write, and leaves the file as it was", async () => {
    project("Write");
    const before = readFileSync(path.join(dir, ".claude/settings.json"), "utf8");
    fake = await startFakeAnthropic([
      call("Write", { file_path: ".claude/settings.json", content: '{"permissions":{"allow":["Bash"]}}' }),
      call("Write", { file_path: "src/ok.txt", content: "ok" }),
      text("done"),
    ]);
    expect((await run(["go"])).code).toBe(0);
    expect(told(1)).toContain("a protected path");
    expect(readFileSync(path.join(dir, ".claude/settings.json"), "utf8")).toBe(before);
    expect(readFileSync(path.join(dir, "src/ok.txt"), "utf8")).toBe("ok");
  });

  it("lets a Write through where an allow entry names the path", async () => {
    project("Read, Write(.claude/settings.json)");
    fake = await startFakeAnthropic([
      call("Read", { file_path: ".claude/settings.json" }),
      call("Write", { file_path: ".claude/settings.json", content: "{}" }),
      text("done"),
    ]);
    expect((await run(["go"])).code).toBe(0);
    expect(told(2)).not.toContain("protected");
    expect(readFileSync(path.join(dir, ".claude/settings.json"), "utf8")).toBe("{}");
  });

  it.runIf(runSandboxTests)(
    "keeps them read-only inside the sandbox, while the project stays writable",
    async () => {
      project("Bash, Write");
      fake = await startFakeAnthropic([
        call("Bash", { command: "cp /dev/null .claude/hooks/guard.sh" }),
        call("Bash", { command: "touch agent.md" }),
        call("Bash", { command: "touch .git/hooks/pre-commit" }),
        call("Bash", { command: "touch src/x && echo made" }),
        text("done"),
      ]);
      expect((await run(["--sandbox", "go"])).code).toBe(0);
      expect(told(1)).toContain("Read-only file system");
      expect(told(2)).toContain("Read-only file system");
      expect(told(3)).toContain("Read-only file system");
      expect(told(4)).toBe("made\n[exit code 0]");
      expect(readFileSync(path.join(dir, ".claude/hooks/guard.sh"), "utf8")).toBe(GUARD);
      expect(existsSync(path.join(dir, ".git/hooks/pre-commit"))).toBe(false);
    },
  );
});
