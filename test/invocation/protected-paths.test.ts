import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { protectedWriteDenies } from "../../src/invocation/protected-paths.js";
import { compileList, decide, loadShellParser, type ShellParser } from "../../src/permissions/index.js";
import { realPathOf } from "../../src/tools/real-path.js";
import { projectInventory } from "../../src/trust/inventory/inventory.js";
import { protectedPaths } from "../../src/trust/inventory/protected.js";
import { tempDir } from "../support/fixtures.js";
import { entries, SPECS } from "../support/permissions.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  mkdirSync(path.join(t.dir, ".claude/hooks"), { recursive: true });
  mkdirSync(path.join(t.dir, "scripts"), { recursive: true });
  mkdirSync(path.join(t.dir, "src"), { recursive: true });
  writeFileSync(path.join(t.dir, ".claude/hooks/guard.sh"), "exit 0\n");
  writeFileSync(path.join(t.dir, "scripts/check.sh"), "exit 0\n");
  writeFileSync(path.join(t.dir, "agent.md"), "---\nallowed-tools: Write\n---\n");
  return t.dir;
}

/** The run's hooks that are not the project's (the user's own, given in code): their scripts are protected too. */
const HOOKS = ['bash "$CLAUDE_PROJECT_DIR"/scripts/check.sh', "echo no-file-here"];
const HOME = "/home/u";

const protectedOf = (dir: string, hooks: readonly string[] = HOOKS) =>
  protectedPaths(projectInventory(dir, HOME), dir, hooks);

/** `allowed` or `denied: <reason>` for one call under an allow list with the protection of `dir`. */
function judge(dir: string, allow: string, tool: string, input: Record<string, unknown>): string {
  const ctx = { specs: SPECS, projectDir: dir, home: HOME };
  const allowEntries = entries(allow);
  const denies = protectedWriteDenies(protectedOf(dir), allowEntries, ctx);
  const list = compileList(allowEntries, denies, ctx);
  const d = decide(list, { tool, input }, { specs: SPECS, cwd: dir, realPath: realPathOf, shell });
  return d.kind === "allowed" ? "allowed" : `denied: ${d.reason}`;
}

// [allow list, tool, path relative to the project, expected]
const CASES: [string, string, string, string][] = [
  ["Write", "Write", "src/a.ts", "allowed"],
  ["Write", "Write", "agent.md", "denied: denied-by-rule"],
  ["Write", "Write", ".claude/settings.json", "denied: denied-by-rule"],
  ["Write", "Write", ".claude/hooks/guard.sh", "denied: denied-by-rule"],
  ["Write", "Write", "scripts/check.sh", "denied: denied-by-rule"],
  ["Write", "Write", "scripts/other.sh", "allowed"],
  ["Write", "Write", ".mcp.json", "denied: denied-by-rule"],
  ["Write", "Write", "CLAUDE.md", "denied: denied-by-rule"],
  ["Write", "Write", "tools/deploy.mjs", "denied: denied-by-rule"],
  ["Write", "Write", ".git/hooks/pre-commit", "denied: denied-by-rule"],
  ["Write", "Write", ".git/config", "denied: denied-by-rule"],
  ["Write", "Write", "agents/new.md", "denied: denied-by-rule"],
  ["Write(**)", "Write", "skills/x/SKILL.md", "denied: denied-by-rule"],
  ["Edit", "Edit", "commands/x.md", "denied: denied-by-rule"],
  ["MultiEdit", "MultiEdit", "agent.md", "denied: denied-by-rule"],
  ["Write(.claude/settings.json)", "Write", ".claude/settings.json", "allowed"],
  ["Write(agent.md)", "Write", "agent.md", "allowed"],
  ["Edit(agents/**)", "Edit", "agents/a.md", "allowed"],
  ["Write(agents/**)", "Write", "agent.md", "denied: denied-by-rule"],
  ["Write(src/**)", "Write", "src/../agent.md", "denied: denied-by-rule"],
];

describe("protected paths: the files that define a run", () => {
  it.each(CASES)("%s | %s(%s) → %s", (allow, tool, rel, expected) => {
    const dir = project();
    expect(judge(dir, allow, tool, { file_path: path.join(dir, rel), content: "x" })).toBe(expected);
  });

  it("are judged on the real path: a link to a hook script is the hook script", () => {
    const dir = project();
    symlinkSync(path.join(dir, ".claude/hooks/guard.sh"), path.join(dir, "src/innocent.sh"));
    expect(judge(dir, "Write", "Write", { file_path: path.join(dir, "src/innocent.sh") })).toBe(
      "denied: denied-by-rule",
    );
  });

  it("bind a Bash redirection as a Write", () => {
    const dir = project();
    const line = "echo 'exit 0' > .claude/hooks/guard.sh";
    expect(judge(dir, "Bash, Write", "Bash", { command: line })).not.toBe("allowed");
    expect(judge(dir, "Bash, Write", "Bash", { command: "echo x > src/out.txt" })).toBe("allowed");
  });

  it("names the scripts a hook command names, inside the project only", () => {
    const dir = project();
    const real = projectInventory(dir, HOME).dir;
    const named = (hooks: string[]) =>
      protectedOf(dir, hooks)
        .map((p) => p.path)
        .filter((p) => p.startsWith(`${real}${path.sep}scripts`));
    expect(named(HOOKS)).toEqual([path.join(real, "scripts/check.sh")]);
    expect(named(["bash /etc/profile"])).toEqual([]);
  });

  it("no allow list without an entry naming a protected path lets a writer reach it", () => {
    const dir = project();
    const allow = fc.constantFrom(
      "Write",
      "Write(**)",
      `Write(${dir}/**)`,
      "Write(src/**)",
      "Edit",
      "Write(*)",
    );
    const target = fc.constantFrom(
      "agent.md",
      ".claude/settings.local.json",
      ".claude/hooks/guard.sh",
      "scripts/check.sh",
      "tools/t.ts",
      ".git/hooks/post-checkout",
      "agents/x/y.md",
    );
    fc.assert(
      fc.property(fc.uniqueArray(allow, { minLength: 1, maxLength: 3 }), target, (a, rel) => {
        const tool = a.some((x) => x.startsWith("Write")) ? "Write" : "Edit";
        expect(judge(dir, a.join(", "), tool, { file_path: path.join(dir, rel), content: "x" })).not.toBe(
          "allowed",
        );
      }),
      { numRuns: 200 },
    );
    expect(readFileSync(path.join(dir, ".claude/hooks/guard.sh"), "utf8")).toBe("exit 0\n");
  });
});
