import { cpSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { runBinAsync } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { fill, smallDisk } from "../support/full-disk.js";
import { writeFiles } from "../support/tools.js";

/**
 * The files agentmd keeps, on a real full disk (a 64 KiB tmpfs, filled): each is written whole or
 * not at all, and the command says so in one line with a non-zero exit, never a stack trace.
 */

/** A 64 KiB tmpfs at `disk` in the test's folder, unmounted before the folder is removed. */
const it = test.extend<{ disk: string }>({
  disk: async ({ dir }, use) => {
    const where = path.join(dir, "disk");
    const unmount = smallDisk(where);
    try {
      await use(where);
    } finally {
      unmount();
    }
  },
});

const DENY = Array.from({ length: 153 }, (_, i) => `Bash(forbidden-command-number-${i}:*)`);

describe("a full disk", () => {
  it("plugin install --scope project keeps .claude/settings.json whole, with its 153 deny rules", async ({
    dir,
    disk,
    env,
  }) => {
    const market = path.join(dir, "market");
    cpSync(
      path.join(REPO_ROOT, "test/fixtures/plugins/ralph-loop"),
      path.join(market, "plugins/ralph-loop"),
      {
        recursive: true,
      },
    );
    writeFiles(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "local",
        owner: { name: "tests" },
        plugins: [{ name: "ralph-loop", source: "./plugins/ralph-loop", version: "0.0.1" }],
      }),
    });
    const project = disk;
    const settings = `${JSON.stringify({ permissions: { deny: DENY } }, null, 2)}\n`;
    expect(settings.length).toBeGreaterThan(4096);
    writeFiles(project, {
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      ".claude/settings.json": settings,
    });
    const plugin = (args: string[]) => runBinAsync(["plugin", ...args], { cwd: project, env });
    expect((await plugin(["marketplace", "add", market])).code).toBe(0);
    fill(project, 4096);
    const r = await plugin(["install", "ralph-loop@local", "--scope", "project"]);
    expect(r.code).toBe(1);
    const file = path.join(project, ".claude/settings.json");
    expect(r.stderr).toBe(
      `agentmd: cannot write ${file}: the disk is full (no space left on device); it is left as it was\n`,
    );
    expect(readFileSync(file, "utf8")).toBe(settings);
    expect(readdirSync(path.join(project, ".claude"))).toEqual(["settings.json"]);
  });

  it("plugin install onto a full home (the plugin's copy) is one line too, and the settings are untouched", async ({
    dir,
    disk,
    env,
  }) => {
    const market = path.join(dir, "market");
    cpSync(
      path.join(REPO_ROOT, "test/fixtures/plugins/ralph-loop"),
      path.join(market, "plugins/ralph-loop"),
      {
        recursive: true,
      },
    );
    writeFiles(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "local",
        owner: { name: "tests" },
        plugins: [{ name: "ralph-loop", source: "./plugins/ralph-loop", version: "0.0.1" }],
      }),
      "plugins/ralph-loop/big.txt": "x".repeat(40_000),
    });
    const plugin = (args: string[]) =>
      runBinAsync(["plugin", ...args], { cwd: dir, env: { ...env, HOME: disk } });
    expect((await plugin(["marketplace", "add", market])).code).toBe(0);
    fill(disk, 8192);
    const r = await plugin(["install", "ralph-loop@local"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agentmd: cannot write .*: the disk is full \(no space left on device\)\n$/);
    expect(readdirSync(path.join(disk, ".claude"))).toEqual(["plugins"]);
  });

  it("trust --yes on a full home keeps trust.json whole and says so", async ({ dir, disk, env, project }) => {
    project({
      "p/.claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] },
      }),
    });
    const home = disk;
    const file = path.join(home, ".agentmd", "trust.json");
    const before = `${JSON.stringify({ version: 1, folders: { "/elsewhere": { digest: "d", note: "x".repeat(5000) } } }, null, 2)}\n`;
    writeFiles(home, { ".agentmd/trust.json": before });
    fill(home, 0);
    const r = await runBinAsync(["trust", "--yes", "p"], { cwd: dir, env: { ...env, HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^agentmd trust: cannot (write|change) .*trust\.json: the disk is full \(no space left on device\); it is left as it was\n$/,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(readdirSync(path.join(home, ".agentmd"))).toEqual(["trust.json"]);
  });
});
