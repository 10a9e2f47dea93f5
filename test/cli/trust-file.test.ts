import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { runBinAsync } from "../support/cli.js";
import { test as it } from "../support/fixture.js";
import { writeFiles } from "../support/tools.js";

/**
 * `~/.agentmd/trust.json` as a user's machine treats it, through the built CLI: many `agentmd trust`
 * at once, a home where `.agentmd` cannot be made, a file edited by hand into broken JSON.
 */

const HOOKED = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] },
});

/** `n` folders under `dir`, each with a settings hook (code to trust). */
function folders(dir: string, n: number): string[] {
  const names = Array.from({ length: n }, (_, i) => `p${i + 1}`);
  writeFiles(dir, Object.fromEntries(names.map((p) => [`${p}/.claude/settings.json`, HOOKED])));
  return names.map((p) => path.join(dir, p));
}

/** The fixture's HOME. */
const homeOf = (dir: string) => path.join(dir, "home");

const trusted = (home: string) =>
  Object.keys(JSON.parse(readFileSync(path.join(home, ".agentmd", "trust.json"), "utf8")).folders).sort();

describe("the trust file under concurrent writers", () => {
  it("16 agentmd trust --yes at once under one HOME: every folder is kept, and no lock or temporary file is left", async ({
    dir,
    env,
  }) => {
    const home = homeOf(dir);
    const dirs = folders(dir, 16);
    const runs = await Promise.all(dirs.map((d) => runBinAsync(["trust", "--yes", d], { cwd: dir, env })));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^trusted: /m);
    }
    expect(trusted(home)).toEqual([...dirs].sort());
    expect(readdirSync(path.join(home, ".agentmd"))).toEqual(["trust.json"]);
  }, 120_000);
});

describe("a trust file agentmd cannot write or read back", () => {
  it("~/.agentmd is a file: one line naming it, exit 1, nothing changed", async ({ dir, env }) => {
    const [p] = folders(dir, 1);
    writeFiles(homeOf(dir), { ".agentmd": "not a folder\n" });
    const r = await runBinAsync(["trust", "--yes", p as string], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `agentmd trust: cannot write ${path.join(homeOf(dir), ".agentmd", "trust.json")}: ${path.join(homeOf(dir), ".agentmd")} is a file, not a folder; nothing was changed\n`,
    );
    expect(readFileSync(path.join(homeOf(dir), ".agentmd"), "utf8")).toBe("not a folder\n");
  });

  it("a hand-edited trust.json with a trailing comma is never overwritten: trust, --revoke and --list say where and why", async ({
    dir,
    env,
  }) => {
    const [a, b] = folders(dir, 2) as [string, string];
    expect((await runBinAsync(["trust", "--yes", a], { cwd: dir, env })).code).toBe(0);
    const file = path.join(homeOf(dir), ".agentmd", "trust.json");
    // A hand edit: a trailing comma after the last entry.
    const edited = readFileSync(file, "utf8").replace(/}\n {2}}\n}\n$/, "},\n  }\n}\n");
    expect(edited).not.toBe(readFileSync(file, "utf8"));
    writeFileSync(file, edited);
    for (const args of [
      ["trust", "--yes", b],
      ["trust", "--revoke", a],
      ["trust", "--list"],
    ]) {
      const r = await runBinAsync(args, { cwd: dir, env });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^agentmd trust: ${file.replace(/[.]/g, "\\.")} is not a trust file agentmd can read \\(not valid JSON: .*\\); agentmd leaves it as it is`,
        ),
      );
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(readFileSync(file, "utf8")).toBe(edited);
    }
  });

  it("entries it does not understand are kept as they are when another folder is trusted", async ({
    dir,
    env,
  }) => {
    const [a] = folders(dir, 1) as [string];
    const odd = { digest: "hand-written", note: "kept" };
    writeFiles(homeOf(dir), {
      ".agentmd/trust.json": JSON.stringify({ version: 1, folders: { "/elsewhere": odd } }),
    });
    expect((await runBinAsync(["trust", "--yes", a], { cwd: dir, env })).code).toBe(0);
    const folders_ = JSON.parse(
      readFileSync(path.join(homeOf(dir), ".agentmd", "trust.json"), "utf8"),
    ).folders;
    expect(folders_["/elsewhere"]).toEqual(odd);
    expect(Object.keys(folders_).sort()).toEqual(["/elsewhere", a]);
  });
});
