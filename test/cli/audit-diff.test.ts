import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin, runCli } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * `agentmd audit --diff REV` in real git repositories: the revision's definitions and settings are
 * read from git, the working tree's from disk; exit 1 when an entry point gained anything.
 */

const temps: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of temps.splice(0)) cleanup();
});

/** A folder of its own, and a home with nothing in it (no user-level definitions or settings). */
function setup(): { dir: string; env: Record<string, string> } {
  const t = tempDir();
  temps.push(t.cleanup);
  const home = path.join(t.dir, "home");
  const dir = path.join(t.dir, "repo");
  mkdirSync(home);
  mkdirSync(dir);
  return { dir, env: { PATH: process.env.PATH ?? "", HOME: home } };
}

function git(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd: dir, env: { ...env, GIT_CONFIG_NOSYSTEM: "1" }, encoding: "utf8" },
  );
}

function commit(dir: string, env: Record<string, string>, files: Record<string, string>): void {
  writeFiles(dir, files);
  git(dir, env, "add", "-A");
  git(dir, env, "commit", "-q", "-m", "change");
}

const AGENT = "---\nallowed-tools: Read, Grep, Bash(git:*), Task(reviewer)\n---\nLead.\n";
const reviewer = (tools: string) =>
  `---\nname: reviewer\ndescription: Reviews.\ntools: ${tools}\n---\nReview.\n`;

function project(): { dir: string; env: Record<string, string> } {
  const p = setup();
  git(p.dir, p.env, "init", "-q");
  commit(p.dir, p.env, {
    "agent.md": AGENT,
    "agents/reviewer.md": reviewer("Read, Bash(git diff:*)"),
    ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(.env)"] } }, null, 2),
  });
  return p;
}

describe("agentmd audit --diff REV", () => {
  it("exits 1 on a widening, listing what each entry point gained, with where it came from", () => {
    const { dir, env } = project();
    writeFiles(dir, { "agents/reviewer.md": reviewer("Read, Bash(git:*)") });
    const r = runBin(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^compared with HEAD \([0-9a-f]{12}\): widened — 2 entry points can do what they could not$/,
    );
    const at = lines.indexOf("--agent reviewer");
    expect(lines.slice(at, at + 2).map((l) => l.replace(/ {2,}/g, "  "))).toEqual([
      "--agent reviewer",
      "  + Bash(git:*)  via main → agent:reviewer  [agent.md:2:28, agents/reviewer.md:4:14]",
    ]);
    // The main agent reaches the reviewer by Task: its chains gained it too.
    expect(lines).toContain("main");
  });

  it("exits 0 on a narrowing, listing what was lost where it was at the revision", async () => {
    const { dir, env } = project();
    writeFiles(dir, { "agents/reviewer.md": reviewer("Read") });
    const r = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(": nothing gained\n");
    expect(r.stdout.replace(/ {2,}/g, "  ")).toContain(
      "--agent reviewer\n  − Bash(git diff:*)  via main → agent:reviewer  [agent.md:2:28, agents/reviewer.md:4:14 at HEAD]\n",
    );
  });

  it("reads the revision from git, not from the working tree", async () => {
    const { dir, env } = project();
    commit(dir, env, { "agents/reviewer.md": reviewer("Read, Bash(git:*)") });
    // The working tree is HEAD: nothing changed since it, and HEAD~1 is only in git's objects.
    const same = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect([same.code, same.stdout.split("\n").slice(1)]).toEqual([
      0,
      ["no entry point changed what it can do", ""],
    ]);
    const before = await runCli(["audit", "--diff", "HEAD~1", "--json"], { cwd: dir, env });
    expect(before.code).toBe(1);
    const report = JSON.parse(before.stdout);
    expect(report.revision).toBe("HEAD~1");
    expect(report.commit).toBe(git(dir, env, "rev-parse", "HEAD~1").trim());
    expect(report.widened).toBe(true);
    const entry = report.entryPoints.find((e: { name: string }) => e.name === "--agent reviewer");
    expect(entry.gained.map((g: { text: string }) => g.text)).toEqual(["Bash(git:*)"]);
    expect(entry.gained[0].chain).toEqual(["main", "agent:reviewer"]);
    expect(entry.lost).toEqual([]);
  });

  it("counts the settings: a deny rule dropped is a gain, one added a loss", async () => {
    const { dir, env } = project();
    writeFiles(dir, { ".claude/settings.json": "{}\n" });
    const dropped = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(dropped.code).toBe(1);
    // Read (and Grep, judged by Read's denies) reach .env again; Read less the .env is not lost.
    expect(dropped.stdout).toMatch(
      /^main\n {2}\+ Read +via main {2}\[agent\.md:2:16\]\n {2}\+ Grep +via main /m,
    );
    expect(dropped.stdout).not.toContain("−");

    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(.env)", "Bash(git push:*)"] } }),
    });
    const added = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^main\n {2}− Bash\(git:\*\) +via main {2}\[agent\.md:2:28 at HEAD\]$/m);
    expect(added.stdout).not.toContain("+");
    expect(added.stdout).toContain(": nothing gained\n");
  });

  it("counts the sandbox: a subagent that no longer runs sandboxed is a widening", async () => {
    const { dir, env } = project();
    commit(dir, env, { "agents/reviewer.md": reviewer("Read, Bash(git diff:*)\nsandbox: true") });
    writeFiles(dir, { "agents/reviewer.md": reviewer("Read, Bash(git diff:*)") });
    const r = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("--agent reviewer\n  + commands sandboxed: all → none\n");
    expect(r.stdout).toContain("main\n  + commands sandboxed: some → none\n");
  });

  it("audits a project in a subfolder of the repository, and leaves what git ignores out of the comparison", async () => {
    const { dir, env } = setup();
    git(dir, env, "init", "-q");
    const sub = path.join(dir, "tools", "agents-here");
    commit(dir, env, {
      ".gitignore": "settings.local.json\n",
      "tools/agents-here/agent.md": AGENT,
      "tools/agents-here/agents/reviewer.md": reviewer("Read"),
    });
    // A personal file git ignores: no revision has it, so both sides read it from here.
    writeFiles(sub, {
      ".claude/settings.local.json": JSON.stringify({ permissions: { deny: ["Bash(git push:*)"] } }),
    });
    const r = await runCli(["audit", "--diff", "HEAD"], { cwd: sub, env });
    expect([r.code, r.stdout.split("\n").slice(1)]).toEqual([
      0,
      [
        "note: .claude/settings.local.json is ignored by git: read from the working tree on both sides",
        "no entry point changed what it can do",
        "",
      ],
    ]);
  });

  it("takes everything as gained when the revision could not run", async () => {
    const { dir, env } = project();
    commit(dir, env, { "agent.md": "---\nallowed-tools: Read\nallowed-tools: Read\n---\nbroken\n" });
    writeFiles(dir, { "agent.md": AGENT });
    const r = await runCli(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "note: at HEAD, agent.md or the settings do not load (a run would be refused there), so everything counts as gained\n",
    );
    expect(r.stdout).toContain("main  (new entry point)\n");
  });

  it("says what is wrong, without a stack trace, for a revision git does not know or a folder outside git", async () => {
    const { dir, env } = project();
    const unknown = await runCli(["audit", "--diff", "no-such-branch"], { cwd: dir, env });
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([
      2,
      "",
      "agentmd audit: unknown revision 'no-such-branch': git knows no commit by that name here\n",
    ]);
    const option = await runCli(["audit", "--diff=--output=x"], { cwd: dir, env });
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown revision '--output=x'");

    const outside = setup();
    writeFiles(outside.dir, { "agent.md": AGENT });
    const r = await runCli(["audit", "--diff", "HEAD"], { cwd: outside.dir, env: outside.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `agentmd audit: ${outside.dir} is not inside a git repository, so there is no revision to compare with\n`,
    );
  });
});
