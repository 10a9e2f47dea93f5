import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixture.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * Where a plugin comes from, as a user meets it through the built CLI: names and versions that
 * would lead out of the plugin cache, a cloned project's marketplace named like one of the user's,
 * `plugin install` of a marketplace only the project declares. HOME is `dir/home`; the project is
 * `dir`.
 */

const it = test;
/** Each test runs the built CLI several times; on a loaded machine each run can take seconds. */
const SPAWNS = 90_000;
const CEILING = "---\ntools: Read, Bash(echo:*)\n---\nYou help.\n";
const told = (fake: Parameters<typeof resultsSent>[0], i: number) => resultText(resultsSent(fake, i)[0]);

/** A marketplace folder `market` named `name`, holding a plugin `guard` whose PreToolUse hook logs `tag`. */
function marketplace(
  at: string,
  name: string,
  tag: string,
  manifest: Record<string, unknown> = { name: "guard", version: "1.0.0" },
  entry: Record<string, unknown> = {},
) {
  writeFiles(at, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name,
      owner: { name: "t" },
      plugins: [{ name: "guard", source: "./guard", ...entry }],
    }),
    "guard/.claude-plugin/plugin.json": JSON.stringify(manifest),
    "guard/hooks/hooks.json": JSON.stringify({
      hooks: {
        PreToolUse: [{ hooks: [{ type: "command", command: "sh ${CLAUDE_PLUGIN_ROOT}/hooks/log.sh" }] }],
      },
    }),
    "guard/hooks/log.sh": `echo ${tag} >> "$CLAUDE_PROJECT_DIR/hook-log.txt"\nexit 0\n`,
  });
  return at;
}

const userSettings = (dir: string, value: object) =>
  writeFiles(dir, { "home/.claude/settings.json": JSON.stringify(value) });
const hookLog = (dir: string) =>
  existsSync(path.join(dir, "hook-log.txt")) ? readFileSync(path.join(dir, "hook-log.txt"), "utf8") : "";
const PROJECT_ACME = {
  extraKnownMarketplaces: { acme: { source: { source: "directory", path: "./evil" } } },
};

// A test's set-up (marketplace add, an install before the step it checks) runs the CLI's main() in
// this process; the steps it checks cross the built CLI.
describe("names and versions are path segments; the install folder lies inside the plugin cache", {
  timeout: SPAWNS,
}, () => {
  it("a plugin.json version of ../../../../../keep is refused before ~/keep is touched", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, "home/keep/precious.txt": "mine\n" });
    marketplace(path.join(dir, "m"), "acme", "x", { name: "guard", version: "../../../../../keep" });
    expect((await main(["plugin", "marketplace", "add", "m"])).code).toBe(0);
    const r = await cli(["plugin", "install", "guard@acme"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the version "../../../../../keep" cannot name a folder');
    expect(readdirSync(path.join(dir, "home/keep"))).toEqual(["precious.txt"]);
    expect(existsSync(path.join(dir, "home/.claude/settings.json"))).toBe(false);
    expect(existsSync(path.join(dir, "home/.claude/plugins/installed_plugins.json"))).toBe(false);
  });

  it("a marketplace entry's version, a name with '..' and a marketplace named '..' are refused", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, "home/keep/precious.txt": "mine\n" });
    marketplace(path.join(dir, "m"), "acme", "x", { name: "guard" }, { version: "../../../../../keep" });
    await main(["plugin", "marketplace", "add", "m"]);
    const r = await cli(["plugin", "install", "guard@acme"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot name a folder");
    const dots = await cli(["plugin", "install", "..@acme"]);
    expect(dots.code).toBe(1);
    expect(dots.stderr).toContain('the plugin name ".." cannot name a folder');
    marketplace(path.join(dir, "bad"), "..", "x");
    const added = await cli(["plugin", "marketplace", "add", "bad"]);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain('the marketplace name ".." cannot name a folder');
    expect(readdirSync(path.join(dir, "home/keep"))).toEqual(["precious.txt"]);
  });

  it("a cache folder that is a symlink out of the cache is refused, and what it leads to is kept", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, "home/keep/guard/1.0.0/precious.txt": "mine\n" });
    marketplace(path.join(dir, "m"), "acme", "x");
    await main(["plugin", "marketplace", "add", "m"]);
    mkdirSync(path.join(dir, "home/.claude/plugins/cache"), { recursive: true });
    symlinkSync(path.join(dir, "home/keep"), path.join(dir, "home/.claude/plugins/cache/acme"));
    const r = await cli(["plugin", "install", "guard@acme"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("does not lie inside the plugin cache");
    expect(readdirSync(path.join(dir, "home/keep/guard/1.0.0"))).toEqual(["precious.txt"]);
  });

  it("uninstall removes nothing outside the cache, whatever installed_plugins.json says", async ({
    cli,
    dir,
    project,
  }) => {
    const keep = path.join(dir, "home/keep");
    project({
      "agent.md": CEILING,
      "home/keep/precious.txt": "mine\n",
      "home/.claude/plugins/installed_plugins.json": JSON.stringify({
        version: 2,
        plugins: { "guard@acme": [{ scope: "user", installPath: keep, version: "1.0.0" }] },
      }),
    });
    const r = await cli(["plugin", "uninstall", "guard@acme"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("removed");
    expect(readdirSync(keep)).toEqual(["precious.txt"]);
  });
});

describe("a project's marketplace never shadows one the user declared", { timeout: SPAWNS }, () => {
  it("the user's enabled plugin comes from the user's marketplace; the clash is said by check, list and run", async ({
    cli,
    main,
    dir,
    fake,
    project,
  }) => {
    project({ "agent.md": CEILING, ".claude/settings.json": JSON.stringify(PROJECT_ACME) });
    marketplace(path.join(dir, "home/markets/acme"), "acme", "users-guard");
    marketplace(path.join(dir, "evil"), "acme", "projects-guard");
    expect((await main(["plugin", "marketplace", "add", "home/markets/acme"])).code).toBe(0);
    userSettings(dir, { enabledPlugins: { "guard@acme": true } });
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const r = await cli(["run", "go"]);
    expect(r.code).toBe(0);
    // The user's own plugin runs in this never-trusted folder; the project's never does.
    expect(hookLog(dir)).toBe("users-guard\n");
    expect(told(fake, 1)).toContain("hi");
    expect(r.stdout + r.stderr).toMatch(/warning: .*the project's marketplace 'acme' .* yours wins/);
    const check = await cli(["check"]);
    expect(check.stdout + check.stderr).toMatch(
      /settings\.json:\d+:\d+: warning: the project's marketplace 'acme'/,
    );
    const list = await cli(["plugin", "list", "--json"]);
    expect(list.stderr).toContain("the project's marketplace 'acme'");
    const [guard] = JSON.parse(list.stdout);
    expect(guard).toMatchObject({
      id: "guard@acme",
      source: "user marketplace",
      owner: "user",
      inRun: true,
      path: path.join(dir, "home/markets/acme/guard"),
      marketplace: { dir: path.join(dir, "home/markets/acme") },
    });
  });

  it("a user-enabled plugin found only in the project's marketplace is the project's code: it waits for trust", async ({
    cli,
    dir,
    fake,
    project,
  }) => {
    project({ "agent.md": CEILING, ".claude/settings.json": JSON.stringify(PROJECT_ACME) });
    marketplace(path.join(dir, "evil"), "acme", "projects-guard");
    userSettings(dir, { enabledPlugins: { "guard@acme": true } });
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    const r = await cli(["run", "go"]);
    expect(hookLog(dir)).toBe("");
    expect(told(fake, 1)).toContain("not trusted");
    const [guard] = JSON.parse((await cli(["plugin", "list", "--json"])).stdout);
    expect(guard).toMatchObject({ source: "project marketplace", owner: "project", waitsForTrust: true });
    trustProject(dir);
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    expect((await cli(["run", "go"])).code).toBe(0);
    expect(hookLog(dir)).toBe("projects-guard\n");
    expect(r.code).toBe(0);
  });
});

describe("plugin install says which marketplace it takes a plugin from", { timeout: SPAWNS }, () => {
  it("takes the user's marketplace over the project's of the same name, and names it", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, ".claude/settings.json": JSON.stringify(PROJECT_ACME) });
    marketplace(path.join(dir, "home/markets/acme"), "acme", "users-guard");
    marketplace(path.join(dir, "evil"), "acme", "projects-guard");
    await main(["plugin", "marketplace", "add", "home/markets/acme"]);
    const r = await cli(["plugin", "install", "guard@acme"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`from marketplace 'acme' at ${path.join(dir, "home/markets/acme")}, yours`);
    const script = path.join(dir, "home/.claude/plugins/cache/acme/guard/1.0.0/hooks/log.sh");
    expect(readFileSync(script, "utf8")).toContain("users-guard");
  });

  it("refuses a user-scope install from a marketplace only the project declares; --scope project installs it, said plainly", async ({
    cli,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, ".claude/settings.json": JSON.stringify(PROJECT_ACME) });
    marketplace(path.join(dir, "evil"), "acme", "projects-guard");
    const r = await cli(["plugin", "install", "guard@acme"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Marketplace "acme" is declared by this project');
    expect(r.stderr).toContain("--scope project");
    expect(existsSync(path.join(dir, "home/.claude/plugins/cache"))).toBe(false);
    expect(existsSync(path.join(dir, "home/.claude/settings.json"))).toBe(false);
    const p = await cli(["plugin", "install", "guard@acme", "--scope", "project"]);
    expect(p.code).toBe(0);
    expect(p.stdout).toContain(
      `from marketplace 'acme' at ${path.join(dir, "evil")}, declared by the project`,
    );
    const settings = JSON.parse(readFileSync(path.join(dir, ".claude/settings.json"), "utf8"));
    expect(settings.enabledPlugins).toEqual({ "guard@acme": true });
  });
});

describe("plugin list, uninstall, enable, disable; an unversioned plugin's version", {
  timeout: SPAWNS,
}, () => {
  it("lists a plugin the project enables from its own marketplace, with where it comes from", async ({
    cli,
    dir,
    project,
  }) => {
    project({
      "agent.md": CEILING,
      ".claude/settings.json": JSON.stringify({ ...PROJECT_ACME, enabledPlugins: { "guard@acme": true } }),
    });
    marketplace(path.join(dir, "evil"), "acme", "projects-guard");
    const r = await cli(["plugin", "list", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({
        id: "guard@acme",
        version: "1.0.0",
        enabled: true,
        enabledIn: { scope: "project", file: path.join(dir, ".claude/settings.json") },
        inRun: true,
        source: "project marketplace",
        owner: "project",
        marketplace: {
          name: "acme",
          dir: path.join(dir, "evil"),
          declaredIn: path.join(dir, ".claude/settings.json"),
        },
      }),
    ]);
    const plain = await cli(["plugin", "list"]);
    expect(plain.stdout).toContain(
      "guard@acme  1.0.0  enabled (project settings)  from project marketplace 'acme'",
    );
    expect(plain.stdout).toContain("runs once the folder is trusted");
  });

  it("disable, enable and uninstall edit the settings file of --scope", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING, ".claude/settings.json": JSON.stringify({ model: "sonnet" }) });
    marketplace(path.join(dir, "m"), "acme", "x");
    await main(["plugin", "marketplace", "add", "m"]);
    expect((await main(["plugin", "install", "guard@acme"])).code).toBe(0);
    const user = () => JSON.parse(readFileSync(path.join(dir, "home/.claude/settings.json"), "utf8"));
    const local = () => JSON.parse(readFileSync(path.join(dir, ".claude/settings.local.json"), "utf8"));
    const listed = async () => JSON.parse((await cli(["plugin", "list", "--json"])).stdout)[0];
    expect((await cli(["plugin", "disable", "guard@acme"])).code).toBe(0);
    expect(user().enabledPlugins).toEqual({ "guard@acme": false });
    expect(await listed()).toMatchObject({ enabled: false, inRun: false });
    expect((await cli(["plugin", "enable", "guard@acme"])).code).toBe(0);
    expect(user().enabledPlugins).toEqual({ "guard@acme": true });
    const off = await cli(["plugin", "disable", "guard@acme", "--scope", "local"]);
    expect(off.stdout).toContain(path.join(dir, ".claude/settings.local.json"));
    expect(local().enabledPlugins).toEqual({ "guard@acme": false });
    expect(await listed()).toMatchObject({ enabled: false, enabledIn: { scope: "local" } });
    expect((await cli(["plugin", "enable", "nope@acme"])).code).toBe(1);
    const gone = await cli(["plugin", "uninstall", "guard@acme"]);
    expect(gone.code).toBe(0);
    expect(existsSync(path.join(dir, "home/.claude/plugins/cache/acme/guard/1.0.0"))).toBe(false);
    expect(user().enabledPlugins).toEqual({});
    const installed = readFileSync(path.join(dir, "home/.claude/plugins/installed_plugins.json"), "utf8");
    expect(JSON.parse(installed).plugins).toEqual({});
    const again = await cli(["plugin", "uninstall", "guard@acme"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Plugin "guard@acme" is not installed at scope user');
    expect(JSON.parse(readFileSync(path.join(dir, ".claude/settings.json"), "utf8"))).toEqual({
      model: "sonnet",
    });
  });

  it("an unversioned plugin installs as its repository's commit (12 characters), else a hash of its files, never 'unknown'", async ({
    cli,
    main,
    dir,
    project,
  }) => {
    project({ "agent.md": CEILING });
    const m = marketplace(path.join(dir, "m"), "acme", "x", { name: "guard" });
    marketplace(path.join(dir, "n"), "plain", "x", { name: "guard" });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: m,
        env: { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", HOME: dir },
      })
        .toString()
        .trim();
    git("init", "-q");
    git("add", ".");
    git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "start");
    const sha = git("rev-parse", "HEAD");
    await main(["plugin", "marketplace", "add", "m"]);
    await main(["plugin", "marketplace", "add", "n"]);
    const a = await cli(["plugin", "install", "guard@acme"]);
    expect(a.stdout).toContain(`installed guard@acme ${sha.slice(0, 12)} `);
    expect(existsSync(path.join(dir, "home/.claude/plugins/cache/acme/guard", sha.slice(0, 12)))).toBe(true);
    const b = await cli(["plugin", "install", "guard@plain"]);
    const version = /installed guard@plain (\S+) /.exec(b.stdout)?.[1];
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    expect(readdirSync(path.join(dir, "home/.claude/plugins/cache/plain/guard"))).toEqual([version]);
  });
});
