import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadProject } from "../../src/definitions/load.js";
import { projectPlugins } from "../../src/definitions/plugins.js";
import { projectInputs } from "../../src/definitions/project-inputs.js";
import { loadSettings } from "../../src/definitions/settings.js";
import type { Definition } from "../../src/definitions/types.js";
import { byName } from "../../src/invocation/hop-core.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const manifest = (name: string, extra: object = {}) => JSON.stringify({ name, ...extra }, null, 2);
const skill = (name: string, body = "body") =>
  `---\nname: ${name}\ndescription: does ${name}\n---\n${body}\n`;

/** A local marketplace in `market/` of the project, named `m`, holding plugins `a` and `b`. */
function marketplaceProject(settings: Record<string, object>) {
  writeFiles(dir, {
    "p/agent.md": "---\ntools: Read, Skill, Task\n---\nmain\n",
    "p/market/.claude-plugin/marketplace.json": JSON.stringify({
      name: "m",
      plugins: [
        { name: "a", source: "./a", version: "0.1.0" },
        { name: "b", source: "./b" },
      ],
    }),
    "p/market/a/.claude-plugin/plugin.json": manifest("a", { version: "2.0.0" }),
    "p/market/a/skills/notes/SKILL.md": skill("notes", "a's notes at ${CLAUDE_PLUGIN_ROOT}/x"),
    "p/market/a/skills/only-a/SKILL.md": skill("only-a"),
    "p/market/a/commands/go.md": "---\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/run.sh:*)\n---\ngo\n",
    "p/market/a/agents/helper.md": "---\nname: helper\ndescription: helps\ntools: Read\n---\nhelp\n",
    "p/market/b/.claude-plugin/plugin.json": manifest("b"),
    "p/market/b/skills/notes/SKILL.md": skill("notes"),
    ...Object.fromEntries(Object.entries(settings).map(([f, v]) => [f, JSON.stringify(v)])),
  });
  return path.join(dir, "p");
}
const MARKET = { extraKnownMarketplaces: { m: { source: { source: "directory", path: "./market" } } } };
const byKind = (defs: readonly Definition[], surface: Definition["surface"]) =>
  new Map(defs.filter((d) => d.surface === surface).map((d) => [d.name, d]));

describe("plugins: one more source of definitions", () => {
  it("names a plugin's commands, skills and agents by its plugin.json name and puts its folder in", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": { ...MARKET, enabledPlugins: { "a@m": true } },
    });
    const loaded = loadProject(root, { userDir: path.join(dir, "home/.claude") });
    const names = loaded.definitions.map((d) => `${d.surface} ${d.name}`).sort();
    expect(names).toEqual(["agent a:helper", "command a:go", "main main", "skill a:notes", "skill a:only-a"]);
    const a = path.join(root, "market/a");
    const notes = loaded.definitions.find((d) => d.name === "a:notes");
    expect(notes?.body).toContain(`a's notes at ${a}/x`);
    const go = loaded.definitions.find((d) => d.name === "a:go");
    expect(go?.allowedTools?.entries.map((e) => e.raw)).toEqual([`Bash(${a}/run.sh:*)`]);
    expect(go?.plugin).toEqual({ name: "a", id: "a@m", root: a, owner: "project" });
    // plugin.json's version wins over the marketplace entry's.
    expect(loaded.plugins.map((p) => [p.id, p.version])).toEqual([["a@m", "2.0.0"]]);
  });

  it("merges enabledPlugins key by key: local over project over user", () => {
    const table: [object, object, object, string[]][] = [
      [{ "a@m": true }, {}, {}, ["a@m"]],
      [{ "a@m": true }, { "a@m": false }, {}, []],
      [{ "a@m": false }, { "a@m": true }, {}, ["a@m"]],
      [{}, { "a@m": true, "b@m": true }, { "a@m": false }, ["b@m"]],
      [{ "b@m": true }, {}, { "a@m": true }, ["a@m", "b@m"]],
    ];
    for (const [user, project, local, ids] of table) {
      const root = marketplaceProject({
        "home/.claude/settings.json": { enabledPlugins: user },
        "p/.claude/settings.json": { ...MARKET, enabledPlugins: project },
        "p/.claude/settings.local.json": { enabledPlugins: local },
      });
      const found = projectPlugins(root, { userDir: path.join(dir, "home/.claude") });
      expect(found.plugins.map((p) => p.id).sort()).toEqual(ids);
    }
  });

  it("finds a bare plugin skill or agent when it is the only one; the project's own win; two plugins' bare name calls neither", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": { ...MARKET, enabledPlugins: { "a@m": true, "b@m": true } },
    });
    writeFiles(root, { "agents/helper.md": "---\nname: helper\ndescription: mine\n---\nmine\n" });
    const defs = loadProject(root).definitions;
    const skills = byKind(defs, "skill");
    const agents = byKind(defs, "agent");
    expect(byName(skills, "only-a")?.name).toBe("a:only-a");
    expect(byName(skills, "notes")).toBeUndefined();
    expect(byName(skills, "b:notes")?.plugin?.name).toBe("b");
    expect(byName(agents, "helper")?.plugin).toBeUndefined();
    expect(byName(agents, "a:helper")?.plugin?.name).toBe("a");
    expect(byName(skills, "a:missing")).toBeUndefined();
  });

  it("--plugin-dir wins over an enabled plugin of the same name; a plugin's own marketplace may be source '.'", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": {
        extraKnownMarketplaces: { self: { source: { source: "directory", path: "./solo" } } },
        enabledPlugins: { "solo@self": true },
      },
    });
    writeFiles(root, {
      "solo/.claude-plugin/marketplace.json": JSON.stringify({
        name: "self",
        plugins: [{ name: "solo", source: "." }],
      }),
      "solo/.claude-plugin/plugin.json": manifest("solo", { version: "1.0.0" }),
      "other/.claude-plugin/plugin.json": manifest("solo", { version: "9.9.9" }),
    });
    expect(projectPlugins(root).plugins.map((p) => [p.id, p.root])).toEqual([
      ["solo@self", path.join(root, "solo")],
    ]);
    const given = projectPlugins(root, { pluginDirs: [path.join(root, "other")] });
    expect(given.plugins.map((p) => [p.id, p.version, p.owner])).toEqual([
      ["solo@--plugin-dir", "9.9.9", "user"],
    ]);
  });

  it("a broken plugin.json, a misspelled hook event and a bad server are errors at their line", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": { ...MARKET, enabledPlugins: { "a@m": true, "b@m": true } },
    });
    writeFiles(root, {
      "market/a/.claude-plugin/plugin.json": '{\n  "name": "a",\n  "version": 2,\n}\n',
      "market/b/hooks/hooks.json": '{\n  "hooks": {\n    "preToolUse": []\n  }\n}\n',
      "market/b/.mcp.json": '{\n  "srv": { "command": 7 }\n}\n',
    });
    const loaded = loadProject(root);
    const errors = (loaded.pluginErrors ?? []).map(
      (d) => `${path.relative(root, d.file)}:${d.line} ${d.code}`,
    );
    expect(errors).toEqual([
      "market/a/.claude-plugin/plugin.json:4 plugin-json",
      "market/b/hooks/hooks.json:3 unknown-hook-event",
      "market/b/.mcp.json:2 mcp-server",
    ]);
    expect(loaded.plugins).toEqual([]);
  });

  it("reads hooks.json with the plugin's root put in, run in the project folder with its variables", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": { ...MARKET, enabledPlugins: { "b@m": true } },
    });
    writeFiles(root, {
      "market/b/hooks/hooks.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/g.sh" }] },
          ],
        },
      }),
      "market/b/.mcp.json": JSON.stringify({
        mcpServers: { srv: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/s.js"] } },
      }),
    });
    const [b] = projectPlugins(root, { userDir: path.join(dir, "home/.claude") }).plugins;
    const broot = path.join(root, "market/b");
    expect(b?.hooks?.PreToolUse).toEqual([
      {
        matcher: "Bash",
        command: `${broot}/g.sh`,
        cwd: root,
        origin: "plugin b",
        env: {
          CLAUDE_PLUGIN_ROOT: broot,
          CLAUDE_PLUGIN_DATA: path.join(dir, "home/.claude/plugins/data/b-m"),
        },
      },
    ]);
    expect(b?.servers.map((s) => [s.name, s.config.args])).toEqual([["plugin_b_srv", [`${broot}/s.js`]]]);
    // The plugin's files are the project's inputs (a batch's version) when they are inside it.
    const inputs = projectInputs(root, { plugins: [broot] }).filter((i) => i.kind === "plugin");
    expect(inputs.map((i) => `${i.scope} ${path.relative(broot, i.file)}`)).toContain(
      "project hooks/hooks.json",
    );
  });

  it("checks enabledPlugins' values in the settings", () => {
    writeFiles(dir, { "p/.claude/settings.json": '{\n  "enabledPlugins": { "a@m": "yes" }\n}\n' });
    const r = loadSettings(path.join(dir, "p"), undefined);
    expect(r.diagnostics.map((d) => `${d.line} ${d.severity} ${d.message}`)).toEqual([
      "2 error 'enabledPlugins.a@m' must be true or false",
    ]);
  });

  it("checks enabledPlugins' keys as NAME@MARKETPLACE path segments: another key is a warning and not used", () => {
    const root = marketplaceProject({
      "p/.claude/settings.json": { ...MARKET, enabledPlugins: { "a@m": true, "../a@m": true, "b@..": true } },
    });
    const r = loadSettings(root, undefined);
    expect(r.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      "warning plugin-id",
      "warning plugin-id",
    ]);
    expect(projectPlugins(root).plugins.map((p) => p.id)).toEqual(["a@m"]);
  });
});

describe("whose marketplace, whose plugin", () => {
  const other = { extraKnownMarketplaces: { m: { source: { source: "directory", path: "./other" } } } };
  const added = (root: string) =>
    writeFiles(dir, {
      "home/.claude/plugins/known_marketplaces.json": JSON.stringify({
        m: { source: { source: "directory", path: path.join(root, "market") } },
      }),
    });
  /** [the user's marketplace m: none | added | in user settings, the project declares m too, who enables a@m] → [folder, owner, clash said] */
  const table: [string, boolean, string, string, string, boolean][] = [
    ["none", true, "user", "other/a", "project", false],
    ["none", true, "project", "other/a", "project", false],
    ["added", false, "user", "market/a", "user", false],
    ["added", true, "user", "market/a", "user", true],
    ["added", true, "project", "market/a", "project", true],
    ["added", true, "both", "market/a", "user", true],
    ["settings", true, "user", "market/a", "user", true],
    ["added", false, "project", "market/a", "project", false],
  ];
  it.each(table)(
    "user's m: %s, project declares m: %s, enabled by %s → %s, %s's code",
    (users, projects, by, folder, owner, clash) => {
      const home = path.join(dir, "home/.claude");
      const on = { enabledPlugins: { "a@m": true } };
      const root = marketplaceProject({
        "p/.claude/settings.json": { ...(projects ? other : {}), ...(by !== "user" ? on : {}) },
        "home/.claude/settings.json": {
          ...(by !== "project" ? on : {}),
          ...(users === "settings"
            ? { extraKnownMarketplaces: { m: { source: { source: "directory", path: "../p/market" } } } }
            : {}),
        },
      });
      writeFiles(root, {
        "other/.claude-plugin/marketplace.json": JSON.stringify({
          name: "m",
          plugins: [{ name: "a", source: "./a" }],
        }),
        "other/a/.claude-plugin/plugin.json": manifest("a", { version: "6.6.6" }),
      });
      if (users === "added") added(root);
      const found = projectPlugins(root, { userDir: home });
      expect(found.plugins.map((p) => [path.relative(root, p.root), p.owner])).toEqual([[folder, owner]]);
      const clashes = found.diagnostics.filter((d) => d.code === "marketplace-shadowed");
      expect(clashes.map((d) => path.relative(root, d.file))).toEqual(clash ? [".claude/settings.json"] : []);
    },
  );
});
