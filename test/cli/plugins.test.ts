import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { STDIO_SERVER } from "../support/mcp.js";
import { call, promptOf, resultsSent, resultText, text, toolsOf } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * Published Claude Code plugins (the official marketplace's hookify, ralph-loop and example-plugin,
 * copied as they are) installed as a user installs them — a local marketplace, `agentmd plugin
 * install` — and run through the CLI against the fake model, under a project whose agent.md
 * allows `Bash(echo:*)`. The published copies (test/fixtures/plugins) hold no hook scripts or server, so each test adds
 * the small files a plugin of that shape has (hooks/hooks.json, a script, .mcp.json).
 */

/** Copies of anthropics/claude-plugins-official's plugins, as published (Apache-2.0, their LICENSE beside). */
const PUBLISHED = path.join(REPO_ROOT, "test/fixtures/plugins");
const PLUGINS = ["hookify", "ralph-loop", "example-plugin"] as const;

const GUARD = `#!/bin/bash
input=$(cat)
printf '%s|%s|%s|%s\\n' "$PWD" "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" "$CLAUDE_PROJECT_DIR" >> "$CLAUDE_PROJECT_DIR/hook-saw.txt"
case "$input" in *forbidden*) echo "hookify: rule 'no-forbidden' blocks this" >&2; exit 2;; esac
exit 0
`;
const HOOKS = {
  description: "Hookify rule checks",
  hooks: {
    PreToolUse: [
      {
        hooks: [{ type: "command", command: "bash ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.sh", timeout: 10 }],
      },
    ],
  },
};

const it = test.extend<{
  market: string;
  run: (args: string[]) => Promise<CliRun>;
  plugin: (args: string[]) => Promise<CliRun>;
}>({
  market: async ({ dir }, use) => {
    const market = path.join(dir, "market");
    for (const p of PLUGINS)
      cpSync(path.join(PUBLISHED, p), path.join(market, "plugins", p), { recursive: true });
    writeFiles(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "local",
        owner: { name: "tests" },
        plugins: PLUGINS.map((name) => ({ name, source: `./plugins/${name}`, version: "0.0.1" })),
      }),
      "plugins/hookify/hooks/hooks.json": JSON.stringify(HOOKS, null, 2),
      "plugins/hookify/hooks/pretooluse.sh": GUARD,
      "plugins/ralph-loop/scripts/setup-ralph-loop.sh": '#!/bin/bash\necho "ralph loop set up for: $*"\n',
      "plugins/example-plugin/.mcp.json": JSON.stringify({
        "example-server": { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] },
      }),
      "plugins/example-plugin/server.mjs": `process.argv.splice(2, 0, "basic");\nawait import(${JSON.stringify(STDIO_SERVER)});\n`,
    });
    chmodSync(path.join(market, "plugins/ralph-loop/scripts/setup-ralph-loop.sh"), 0o755);
    await use(market);
  },
  run: async ({ dir, env }, use) => {
    await use((args) => runCli(["run", "--output", "stream-json", ...args], { cwd: dir, env }));
  },
  plugin: async ({ dir, env }, use) => {
    await use((args) => runCli(["plugin", ...args], { cwd: dir, env }));
  },
});

const CEILING =
  "---\ntools: Read, Bash(echo:*), Task, Skill, mcp__plugin_example-plugin_example-server__echo\n---\nYou help.\n";
const told = (fake: Parameters<typeof resultsSent>[0], i: number) => resultText(resultsSent(fake, i)[0]);

async function installAll(plugin: (args: string[]) => Promise<CliRun>, market: string) {
  expect((await plugin(["marketplace", "add", market])).stdout).toContain("added marketplace local");
  for (const p of PLUGINS) {
    const r = await plugin(["install", `${p}@local`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  }
}

describe("agentmd plugin install, list and marketplace add", () => {
  it("installs into the cache, records it, enables it in the scope's settings keeping their keys; an unknown name exits 1", async ({
    dir,
    market,
    plugin,
    project,
  }) => {
    project({
      "agent.md": CEILING,
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
    });
    await plugin(["marketplace", "add", market]);
    const unknown = await plugin(["install", "nope@local"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Plugin "nope" not found in marketplace "local"');
    const r = await plugin(["install", "ralph-loop@local", "--scope", "project"]);
    expect(r.code).toBe(0);
    // plugin.json's version (1.0.0) wins over the marketplace entry's (0.0.1).
    const cached = path.join(dir, "home/.claude/plugins/cache/local/ralph-loop/1.0.0");
    expect(existsSync(path.join(cached, "commands/ralph-loop.md"))).toBe(true);
    const settings = JSON.parse(readFileSync(path.join(dir, ".claude/settings.json"), "utf8"));
    expect(settings).toEqual({
      permissions: { deny: ["Bash(rm:*)"] },
      enabledPlugins: { "ralph-loop@local": true },
    });
    await plugin(["install", "hookify@local"]);
    const listed = JSON.parse((await plugin(["list", "--json"])).stdout);
    expect(
      listed.map((p: { id: string; version: string; scope: string; enabled: boolean }) => [
        p.id,
        p.version,
        p.scope,
        p.enabled,
      ]),
    ).toEqual([
      ["hookify@local", "0.0.1", "user", true],
      ["ralph-loop@local", "1.0.0", "project", true],
    ]);
    expect(listed[0].installPath).toBe(path.join(dir, "home/.claude/plugins/cache/local/hookify/0.0.1"));
    // Turned off in the local settings (which win over the project's), it is listed as disabled.
    writeFiles(dir, {
      ".claude/settings.local.json": JSON.stringify({ enabledPlugins: { "ralph-loop@local": false } }),
    });
    const after = JSON.parse((await plugin(["list", "--json"])).stdout);
    expect(after[1].enabled).toBe(false);
  });
});

describe("a plugin's commands, skills and agents run namespaced, under the project's lists", () => {
  it("runs /plugin:command and /plugin:skill; a bare command is unknown, a bare skill is found", async ({
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING });
    await installAll(plugin, market);
    fake.push(text("helped"));
    const help = await run(["/hookify:help"]);
    expect(help.code).toBe(0);
    expect(promptOf(fake, 0)).toContain("Explain how the hookify plugin works");
    const bare = await run(["/help"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("unknown command or skill /help");
    expect(bare.stderr).toContain("/hookify:help");
    fake.push(text("rules"), text("rules again"));
    expect((await run(["/hookify:writing-rules"])).code).toBe(0);
    expect((await run(["/writing-rules"])).code).toBe(0);
    expect(promptOf(fake, 1)).toContain("hookify");
    expect(promptOf(fake, 2)).toBe(promptOf(fake, 1));
  });

  it("puts ${CLAUDE_PLUGIN_ROOT} in a command's ```! block and its allowed-tools, and the project's Bash(echo:*) still binds", async ({
    dir,
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING });
    await installAll(plugin, market);
    const refused = await run(["/ralph-loop:ralph-loop", "fix the bug"]);
    expect(refused.stdout).toContain("refused_by_permissions");
    const script = path.join(
      dir,
      "home/.claude/plugins/cache/local/ralph-loop/1.0.0/scripts/setup-ralph-loop.sh",
    );
    expect(refused.stdout).toContain(`allows Bash(${script}:*)`);
    expect(fake.requests).toHaveLength(0);
    // With Bash in the project's list, the command's own rule lets exactly its script run.
    writeFiles(dir, { "agent.md": CEILING.replace("Bash(echo:*)", "Bash") });
    fake.push(text("looping"));
    const r = await run(["/ralph-loop:ralph-loop", "fix the bug"]);
    expect(r.code).toBe(0);
    expect(promptOf(fake, 0)).toContain("ralph loop set up for: fix the bug");
    expect(promptOf(fake, 0)).not.toContain("${CLAUDE_PLUGIN_ROOT}");
  });

  it("starts a plugin agent through Task as plugin:agent, and its run stays within the caller's list", async ({
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING, "notes.txt": "hello\n" });
    await installAll(plugin, market);
    fake.push(
      call("Task", {
        subagent_type: "hookify:conversation-analyzer",
        description: "look",
        prompt: "look back",
      }),
      call("Read", { file_path: "notes.txt" }),
      call("Bash", { command: "echo hi" }),
      text("found nothing"),
      text("done"),
    );
    const r = await run(["go"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[1]?.body.system)).toContain("conversation");
    expect(toolsOf(fake, 1)).toEqual(["Read"]);
    expect(told(fake, 2)).toContain("hello");
    expect(told(fake, 3)).toContain("not allowed");
    expect(told(fake, 4)).toContain("found nothing");
  });
});

describe("a plugin's hooks and MCP server", () => {
  it("runs its PreToolUse hook with the plugin's variables in the project folder; a missing script blocks the call", async ({
    dir,
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING });
    await installAll(plugin, market);
    fake.push(
      call("Bash", { command: "echo forbidden" }),
      call("Bash", { command: "echo fine" }),
      text("done"),
    );
    expect((await run(["go"])).code).toBe(0);
    expect(told(fake, 1)).toContain("hookify: rule 'no-forbidden' blocks this");
    expect(told(fake, 2)).toContain("fine");
    const home = path.join(dir, "home/.claude/plugins");
    const root = path.join(home, "cache/local/hookify/0.0.1");
    const saw = readFileSync(path.join(dir, "hook-saw.txt"), "utf8").trim().split("\n");
    expect(saw[0]).toBe(`${dir}|${root}|${path.join(home, "data/hookify-local")}|${dir}`);
    rmSync(path.join(root, "hooks/pretooluse.sh"));
    fake.push(call("Bash", { command: "echo fine" }), text("done"));
    expect((await run(["go"])).code).toBe(0);
    expect(told(fake, 4)).toMatch(/plugin hookify hook .*failed.*blocks the call/);
  });

  it("a misspelled event in hooks.json is a check error at its line, and a run refuses", async ({
    dir,
    fake,
    market,
    plugin,
    project,
    run,
    cli,
  }) => {
    project({ "agent.md": CEILING });
    await installAll(plugin, market);
    const file = path.join(dir, "home/.claude/plugins/cache/local/hookify/0.0.1/hooks/hooks.json");
    writeFileSync(file, JSON.stringify({ hooks: { preToolUse: HOOKS.hooks.PreToolUse } }, null, 2));
    const check = await cli(["check"]);
    expect(check.code).not.toBe(0);
    expect(check.stdout + check.stderr).toMatch(
      /hooks\.json:3:\d+: error: unknown hook event 'preToolUse'; did you mean 'PreToolUse'\?/,
    );
    const r = await run(["go"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("an enabled plugin cannot be used");
    expect(fake.requests).toHaveLength(0);
    const manifest = path.join(
      dir,
      "home/.claude/plugins/cache/local/hookify/0.0.1/.claude-plugin/plugin.json",
    );
    writeFileSync(manifest, '{\n  "name": "hookify",\n  "version": 1,\n}\n');
    expect((await cli(["check"])).stdout).toMatch(/plugin\.json:4:1: error: plugin\.json is not valid JSON/);
  });

  it("starts its MCP server with ${CLAUDE_PLUGIN_ROOT} in its args; its tools are mcp__plugin_<plugin>_<server>__<tool>", async ({
    dir,
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING });
    await plugin(["marketplace", "add", market]);
    await plugin(["install", "example-plugin@local", "--scope", "project"]);
    // Enabled by the repository's own settings: the folder's code, trusted with it.
    trustProject(dir);
    fake.push(call("mcp__plugin_example-plugin_example-server__echo", { text: "hi" }), text("done"));
    const r = await run(["go"]);
    expect(r.code).toBe(0);
    expect(toolsOf(fake, 0)).toContain("mcp__plugin_example-plugin_example-server__echo");
    expect(told(fake, 1)).toBe('{"text":"hi"}');
  });

  it("a plugin the repository enables is its code: untrusted, its server does not start and its hook refuses", async ({
    fake,
    market,
    plugin,
    project,
    run,
  }) => {
    project({ "agent.md": CEILING });
    await plugin(["marketplace", "add", market]);
    await plugin(["install", "example-plugin@local", "--scope", "project"]);
    await plugin(["install", "hookify@local", "--scope", "project"]);
    fake.push(call("Bash", { command: "echo fine" }), text("done"));
    const r = await run(["go"]);
    expect(r.stderr).toContain("not trusted");
    expect(toolsOf(fake, 0)).not.toContain("mcp__plugin_example-plugin_example-server__echo");
    expect(told(fake, 1)).toContain("not trusted");
  });
});

describe("audit", () => {
  it("lists a plugin's entry points with the plugin as their origin", async ({
    cli,
    market,
    plugin,
    project,
  }) => {
    project({ "agent.md": CEILING });
    await installAll(plugin, market);
    const r = await cli(["audit", "--json"]);
    expect(r.code).toBe(0);
    const entries = JSON.parse(r.stdout).entryPoints as { name: string; plugin?: string }[];
    expect(entries.find((e) => e.name === "/hookify:help")?.plugin).toBe("hookify@local");
    expect(entries.find((e) => e.name === "--agent hookify:conversation-analyzer")?.plugin).toBe(
      "hookify@local",
    );
  });
});

describe("audit --diff", () => {
  it("counts a plugin the working tree enables as a gain", async ({
    cli,
    dir,
    env,
    market,
    plugin,
    project,
  }) => {
    project({ "agent.md": CEILING });
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
        {
          cwd: dir,
          env: { ...env, GIT_CONFIG_NOSYSTEM: "1" },
        },
      );
    git("init", "-q");
    git("add", "agent.md");
    git("commit", "-q", "-m", "start");
    await plugin(["marketplace", "add", market]);
    await plugin(["install", "hookify@local", "--scope", "project"]);
    const r = await cli(["audit", "--diff", "HEAD", "--json"]);
    expect(r.code).toBe(1);
    const diff = JSON.parse(r.stdout);
    expect(diff.widened).toBe(true);
    expect(diff.code.map((c: { kind: string; text: string }) => `${c.kind} ${c.text}`)).toContain(
      "plugin plugin hookify@local 0.0.1 enabled (project settings)",
    );
    expect(diff.entryPoints.map((e: { name: string }) => e.name)).toContain("/hookify:help");
  });
});
