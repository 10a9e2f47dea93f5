import { cpSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { jsonLines } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * Real public agent, skill and command files, copied into a Claude Code project's `.claude/`
 * layout as a user who adopts agentmd would have them, then checked, listed and run.
 */
const SAMPLE = path.join(REPO_ROOT, "test/fixtures/corpus-sample");
const SHARED = path.resolve(REPO_ROOT, "../shared/corpus");

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

function walk(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(root, e.name);
    return e.isDirectory() ? walk(p) : e.name.endsWith(".md") ? [p] : [];
  });
}

/** Where a corpus file goes in `.claude/`: agents by name, commands by their path, skills by folder. */
function placeOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  if (path.basename(file) === "SKILL.md")
    return path.join("skills", parts[parts.length - 2] as string, "SKILL.md");
  const at = (folder: string) => parts.lastIndexOf(folder);
  if (at("commands") !== -1) return path.join("commands", ...parts.slice(at("commands") + 1));
  if (at("agents") !== -1) return path.join("agents", path.basename(file));
  return undefined;
}

/** The committed sample, and every 40th file of the full corpus where it sits beside the checkout. */
function importSample(into: string): string[] {
  const files = [...walk(SAMPLE), ...(existsSync(SHARED) ? walk(SHARED).filter((_, i) => i % 40 === 0) : [])];
  const placed: string[] = [];
  for (const file of files) {
    const place = placeOf(file);
    if (!place || placed.includes(place)) continue;
    const target = path.join(into, ".claude", place);
    cpSync(file, target);
    placed.push(place);
  }
  return placed;
}

describe("a .claude/ project made of real files", () => {
  it("checks, lists and runs as a Claude Code user would meet it", async () => {
    const placed = importSample(dir);
    expect(placed.length).toBeGreaterThanOrEqual(10);
    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
      "CLAUDE.md": "This project collects agents.\n",
    });
    const home = { HOME: path.join(dir, "home") };

    const check = await runCli(["check"], { cwd: dir, env: home });
    expect([0, 1]).toContain(check.code);
    const lines = check.stdout.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^checked \d+ files: /);
    for (const line of lines.slice(0, -1).filter((l) => !l.startsWith("sandbox")))
      expect(line).toMatch(/^.+?:\d+:\d+: (error|warning|info): .+ \[[a-z-]+\]$/);
    // Every file that failed says so with an error at its file.
    const failed = lines.flatMap((l) => /^(.+?):\d+:\d+: error: /.exec(l)?.[1] ?? []);
    for (const f of failed) expect(existsSync(path.join(dir, f as string))).toBe(true);

    const tools = await runCli(["tools"], { cwd: dir, env: home });
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain(`project: ${dir} (agent.md: none`);
    expect(tools.stdout).toContain("approval: default mode");
    expect(tools.stdout).toMatch(/Bash\s+every call\n\s+except rm:\*/);

    // A subagent from the sample, started by Task, reads under its own list; a Bash rm is denied
    // by the settings at every hop.
    const agent = placed.find((p) => p.startsWith("agents/") && p !== "agents/README.md") as string;
    const name = loadedName(path.join(dir, ".claude", agent));
    writeFiles(dir, { "notes.txt": "hello\n" });
    fake = await startFakeAnthropic([
      call("Task", { subagent_type: name, description: "look", prompt: "read notes.txt" }),
      call("Read", { file_path: "notes.txt" }),
      call("Bash", { command: "rm notes.txt" }),
      text("read it"),
      text("done"),
    ]);
    const r = await runCli(["run", "--output", "stream-json", "go"], {
      cwd: dir,
      env: { ...home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
    });
    expect(r.code).toBe(0);
    const starts = jsonLines(r.stdout).filter((e) => e.type === "run_start");
    expect(starts.map((e) => (e as { agent: string }).agent)).toEqual(["main", name]);
    const afterRead = resultText(resultsSent(fake, 2)[0]);
    expect(afterRead.includes("hello") || afterRead.includes("not allowed")).toBe(true);
    expect(resultText(resultsSent(fake, 3)[0])).toMatch(/denied by 'Bash\(rm:\*\)'|not allowed/);
    expect(existsSync(path.join(dir, "notes.txt"))).toBe(true);
    expect(statSync(path.join(dir, "notes.txt")).size).toBe(6);
  });
});

/** The `name:` a subagent file gives itself (the file name when it gives none). */
function loadedName(file: string): string {
  const m = /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(readFileSync(file, "utf8"));
  return m ? (m[1] as string) : path.basename(file, ".md");
}
