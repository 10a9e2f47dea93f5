import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBin } from "../support/cli.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * Inspection (`check`, `tools`, `tools --try`, `audit`, `audit --diff`, `sessions`) runs none of a
 * project's code: a tool module that writes a file and exits at import is never imported.
 */

const temps: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of temps.splice(0)) cleanup();
});

const hostile = (marker: string) =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nconsole.log("nothing gained");\nprocess.exit(0);\nexport const zz = make("Zz");\n`;

function git(dir: string, env: Record<string, string>, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd: dir, env: { ...env, GIT_CONFIG_NOSYSTEM: "1" } },
  );
}

/** A committed project; the working tree then adds `tools/zz.mjs` and widens agent.md's list. */
function project() {
  const t = tempDir();
  temps.push(t.cleanup);
  const dir = path.join(t.dir, "repo");
  const home = path.join(t.dir, "home");
  mkdirSync(dir);
  mkdirSync(home);
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nMain.\n" });
  git(dir, env, "init", "-q");
  git(dir, env, "add", "-A");
  git(dir, env, "commit", "-q", "-m", "start");
  const marker = path.join(t.dir, "imported");
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Bash(git push:*)\n---\nMain.\n",
    "tools/zz.mjs": hostile(marker),
  });
  return { dir, env, marker };
}

describe("inspection imports no tool module", () => {
  it.each([
    ["check", ["check"], 0],
    ["tools", ["tools"], 0],
    ["tools --try", ["tools", "--try", "Bash", '{"command":"git push"}'], 0],
    ["audit", ["audit"], 0],
    ["audit --diff HEAD", ["audit", "--diff", "HEAD"], 1],
    ["sessions", ["sessions"], 0],
  ] as const)("%s", (_, argv, code) => {
    const { dir, env, marker } = project();
    const r = runBin([...argv], { cwd: dir, env });
    expect(existsSync(marker)).toBe(false);
    expect(r.stdout).not.toBe("nothing gained\n");
    expect(r.code).toBe(code);
  });

  it("says a tool whose name cannot be read without running its module", () => {
    const { dir, env } = project();
    const audit = runBin(["audit"], { cwd: dir, env });
    expect(audit.stdout).toContain(
      "custom tools: a tool name in tools/zz.mjs is unknown without running tools/zz.mjs",
    );
    const check = runBin(["check"], { cwd: dir, env });
    expect(check.stdout).toMatch(/^tools\/zz\.mjs:1:1: info: a tool name in tools\/zz\.mjs is unknown/m);
    const diff = runBin(["audit", "--diff", "HEAD"], { cwd: dir, env });
    expect(diff.stdout).toContain("+ custom tool module tools/zz.mjs: added  [tools/zz.mjs:1]");
    expect(diff.stdout).toMatch(/\+ Bash\(git push:\*\)/);
  });

  it("knows a tool by the name its source writes, and judges it by its list", () => {
    const { dir, env, marker } = project();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Deploy\n---\nMain.\n",
      "tools/zz.mjs": `${hostile(marker)}export const deploy = defineTool({\n  name: 'Deploy',\n  description: "x",\n});\n`,
    });
    const tools = runBin(["tools"], { cwd: dir, env });
    expect(tools.stdout).toMatch(/^ {2}Deploy +every call$/m);
    const tried = runBin(["tools", "--try", "Deploy", "{}"], { cwd: dir, env });
    expect([tried.code, tried.stdout]).toEqual([0, "allowed\n"]);
    const check = runBin(["check"], { cwd: dir, env });
    expect(check.stdout).not.toContain("Deploy");
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ["tools --mcp", ["tools", "--mcp"]],
    ["audit --mcp", ["audit", "--mcp"]],
  ])("%s starts no MCP server of an untrusted folder, and names agentmd trust", (command, argv) => {
    const { dir, env, marker } = project();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, mcp__probe\n---\nMain.\n",
      ".mcp.json": JSON.stringify({ mcpServers: { probe: { command: "node", args: ["probe-server.mjs"] } } }),
      "probe-server.mjs": hostile(marker),
    });
    const r = runBin([...argv], { cwd: dir, env });
    expect(existsSync(marker)).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `agentmd ${command}: ${dir} is not trusted, so its servers were not started (probe); review them with 'agentmd trust'\n`,
    );
  });
});
