import { realpathSync } from "node:fs";
import path from "node:path";
import { userClaudeDir } from "../../definitions/discover.js";
import { HOOK_EVENTS } from "../../definitions/hook-events.js";
import { readJsonFile } from "../../definitions/json-file.js";
import { loadProject } from "../../definitions/load.js";
import { normaliseHooks } from "../../definitions/load-definition.js";
import { PROJECT_SETTINGS } from "../../definitions/project-inputs.js";
import { CREDENTIAL_COMMANDS } from "../../definitions/settings.js";
import type { HooksSetting, McpServerConfig } from "../../definitions/types.js";
import { readMcpJson } from "../../mcp/read-mcp-json.js";
import { isInside } from "../../shared/is-inside.js";
import type { CodeItem } from "../code-item.js";
import { Follower } from "./follow.js";
import { type Inventory, inventoryOf } from "./inventory-of.js";
import { fileItems, item, mcpLine, pluginFiles } from "./items.js";
import { toolFiles } from "./tool-files.js";

export type { Inventory } from "./inventory-of.js";

/**
 * The inventory of a project's code: what its files would have agentmd (or git) run, read without
 * running any of it. Each hook's command (agent.md, subagents, skills, `.claude/settings*.json`, the
 * project's plugins) and each MCP server's (`.mcp.json`, inline in agent.md and subagents, plugin
 * servers) is followed to the files it names, what those source, import or require, the
 * package-manager scripts and makefiles it runs; each custom tool module, the files beside it and
 * what it imports; the project's plugin folders; git's files; the settings' env keys and agent.md's
 * `baseUrl`. What cannot be followed is named. The user's own files (`~/.claude` of `home`) are the
 * user's and never listed. The one source of the trust digest, the protected paths, `audit --diff`'s
 * code files and the queue's project version. Contract: never throws; an unreadable file is left out
 * (what cannot be read cannot run either).
 */
export function projectInventory(projectDir: string, home: string | undefined): Inventory {
  const dir = realPath(path.resolve(projectDir));
  const user = userClaudeDir(home);
  const own = (file: string) => user === undefined || !isInside(path.resolve(file), path.resolve(user));
  const rel = (file: string) => path.relative(dir, file) || ".";
  const loaded = loadProject(dir, user === undefined ? {} : { userDir: user });
  // A plugin the repository's own settings enable is the folder's code, wherever it is installed.
  const plugins = loaded.plugins.filter((p) => p.owner === "project");
  const definitions = loaded.definitions.filter((d) =>
    d.plugin ? d.plugin.owner === "project" : own(d.file),
  );
  const follow = new Follower(
    dir,
    plugins.map((p) => p.root),
  );
  const items: CodeItem[] = [];
  const hooks = (h: HooksSetting | undefined, where: string, cwds: string[]) =>
    items.push(...hookItems(h, where, follow, cwds));
  const server = (name: string, c: McpServerConfig, where: string) => {
    items.push(mcpItem(name, c, where));
    if (c.command !== undefined)
      follow.command([c.command, ...(c.args ?? [])].map(quoted).join(" "), {
        cwds: [path.resolve(dir, c.cwd ?? ".")],
        known: follow.known(dir),
        by: `MCP server '${name}' — ${where}`,
      });
  };
  for (const p of plugins) {
    hooks(p.hooks, `plugin ${p.id}`, [dir, p.root]);
    for (const s of p.servers) server(s.name, s.config, `plugin ${p.id}`);
  }
  for (const d of definitions)
    if (d.surface !== "command") hooks(d.hooks, rel(d.file), d.plugin ? [dir, d.plugin.root] : [dir]);
  for (const name of PROJECT_SETTINGS) {
    const file = path.join(dir, name);
    if (!own(file)) continue;
    items.push(
      ...settingsItems(file, rel(file), {
        hooks: (h) => hooks(h, rel(file), [dir]),
        command: (key, command) =>
          follow.command(command, { cwds: [dir], known: follow.known(dir), by: `${key} — ${rel(file)}` }),
      }),
    );
  }
  for (const s of readMcpJson(dir).servers) server(s.name, s.config, rel(s.origin.file));
  for (const d of definitions) {
    const refs = d.surface === "main" || d.surface === "agent" ? (d.mcpServers ?? []) : [];
    for (const r of refs) if (r.kind === "inline") server(r.name, r.config, rel(d.file));
  }
  const tools = toolFiles(dir, follow);
  const main = definitions.find((d) => d.surface === "main");
  if (main?.surface === "main" && main.baseUrl !== undefined)
    items.push(
      item("baseUrl", `baseUrl ${rel(main.file)}`, `baseUrl ${main.baseUrl}`, rel(main.file), main.baseUrl),
    );
  const inPlugins = pluginFiles(plugins);
  return inventoryOf(dir, home, {
    items: [...items, ...fileItems(dir, follow, tools, inPlugins)],
    follow,
    tools,
    plugins,
    pluginFiles: inPlugins,
  });
}

function hookItems(
  hooks: HooksSetting | undefined,
  where: string,
  follow: Follower,
  cwds: string[],
): CodeItem[] {
  const out: CodeItem[] = [];
  for (const event of HOOK_EVENTS)
    for (const { origin: _origin, ...h } of hooks?.[event] ?? []) {
      const what = `${event} (${h.matcher || "*"}): ${h.command}`;
      out.push(item("hook", `${where} ${what}`, `hook ${what}  — ${where}`, where, JSON.stringify(h)));
      const root = cwds[1];
      follow.command(h.command, {
        cwds,
        known: {
          ...follow.known(cwds[0] as string),
          ...(root !== undefined && { CLAUDE_PLUGIN_ROOT: root }),
        },
        by: `hook ${event} (${h.matcher || "*"}) — ${where}`,
      });
    }
  return out;
}

/** What a settings file runs: its hooks, and its credential commands (each followed as a hook is). */
interface SettingsCode {
  hooks(h: HooksSetting | undefined): void;
  command(key: string, command: string): void;
}

function settingsItems(file: string, rel: string, code: SettingsCode): CodeItem[] {
  const read = readJsonFile(file);
  if (read.kind !== "ok") return [];
  const value = read.json.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const v = value as Record<string, unknown>;
  code.hooks(normaliseHooks(v.hooks));
  const out: CodeItem[] = [];
  // A credential command runs with the user's key or cloud credentials in reach: the project's code.
  for (const key of CREDENTIAL_COMMANDS) {
    const command = v[key];
    if (typeof command !== "string") continue;
    out.push(item("credential", `${rel} ${key}`, `${key} '${command}'  — ${rel}`, rel, command));
    code.command(key, command);
  }
  const env = v.env;
  if (typeof env === "object" && env !== null && !Array.isArray(env))
    for (const [key, val] of Object.entries(env))
      out.push(item("env", `${rel} ${key}`, `settings env ${key}  — ${rel}`, rel, JSON.stringify(val)));
  return out;
}

function mcpItem(name: string, c: McpServerConfig, file: string): CodeItem {
  return item(
    "mcp",
    `${file} ${name}`,
    `MCP server '${name}': ${mcpLine(c)}  — ${file}`,
    file,
    JSON.stringify(c),
  );
}

/** A word as the shell reads it back: an MCP server's args are words already. */
const quoted = (w: string) => (/^[\w@%+=:,./${}-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
