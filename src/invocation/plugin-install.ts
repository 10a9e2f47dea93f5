import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import {
  INSTALLED_PLUGINS,
  installedPlugins,
  KNOWN_MARKETPLACES,
  readMarketplace,
} from "../definitions/marketplace.js";
import { readPluginFolder } from "../definitions/plugin-folder.js";
import { marketplaces, pluginSwitches, scopedSettings } from "../definitions/plugins.js";
import { ConfigError } from "../shared/errors.js";
import { writeFileWhole } from "../shared/write-whole.js";

/**
 * `agentmd plugin …`: Claude Code's plugin bookkeeping under `~/.claude/plugins/`, written as Claude
 * Code writes it, so that either tool finds what the other installed. Only local marketplaces (a
 * folder) are read; nothing is fetched.
 */

export type InstallScope = "user" | "project" | "local";

export interface PluginPlaces {
  readonly projectDir: string;
  /** The user's `~/.claude`. */
  readonly userDir: string;
}

const pluginsDirOf = (at: PluginPlaces) => path.join(at.userDir, "plugins");

/** Adds the marketplace in folder `dir` to `known_marketplaces.json`; returns its name. */
export function addMarketplace(at: PluginPlaces, dir: string): string {
  const abs = path.resolve(dir);
  const m = readMarketplace(abs);
  if (!("plugins" in m)) throw new ConfigError(`${m.file}:${m.line}:${m.column}: ${m.message}`);
  const file = path.join(pluginsDirOf(at), KNOWN_MARKETPLACES);
  const known = readObject(file);
  known[m.name] = {
    source: { source: "directory", path: abs },
    installLocation: abs,
    lastUpdated: new Date().toISOString(),
  };
  writeJson(file, known);
  return m.name;
}

export interface Installed {
  readonly id: string;
  readonly version: string;
  readonly installPath: string;
  readonly scope: InstallScope;
  /** The settings file whose `enabledPlugins` now holds it. */
  readonly settingsFile: string;
}

/**
 * Installs `name@marketplace`: copies its folder to
 * `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/`, records it in
 * `installed_plugins.json` and enables it in the settings of `scope`, keeping their other keys.
 * Throws `ConfigError` for a marketplace or plugin that is not there, or a plugin that does not load.
 */
export function installPlugin(at: PluginPlaces, id: string, scope: InstallScope): Installed {
  const sep = id.lastIndexOf("@");
  if (sep <= 0 || sep === id.length - 1)
    throw new ConfigError(`name the plugin as NAME@MARKETPLACE, not "${id}"`);
  const name = id.slice(0, sep);
  const market = id.slice(sep + 1);
  const dir = marketplaces(at.projectDir, at.userDir, pluginsDirOf(at)).get(market);
  if (dir === undefined)
    throw new ConfigError(
      `Marketplace "${market}" not found (add it with 'agentmd plugin marketplace add DIR')`,
    );
  const m = readMarketplace(dir);
  if (!("plugins" in m)) throw new ConfigError(`${m.file}:${m.line}: ${m.message}`);
  const entry = m.plugins.find((p) => p.name === name);
  if (!entry) throw new ConfigError(`Plugin "${name}" not found in marketplace "${market}"`);
  if (!entry.dir) throw new ConfigError(`Plugin "${name}" of "${market}" is not in a local folder`);
  const read = readPluginFolder({
    root: entry.dir,
    scope,
    enabled: true,
    owner: "user",
    pluginsDir: pluginsDirOf(at),
    projectDir: at.projectDir,
    ...(entry.version !== undefined && { version: entry.version }),
  });
  const errors = read.diagnostics.filter((d) => d.severity === "error");
  if (!read.plugin || errors.length > 0)
    throw new ConfigError(
      `Plugin "${name}" cannot be installed:\n${errors.map((d) => `  ${d.file}:${d.line}:${d.column}: ${d.message}`).join("\n")}`,
    );
  const version = read.plugin.version;
  const installPath = path.join(pluginsDirOf(at), "cache", market, name, version);
  rmSync(installPath, { recursive: true, force: true });
  cpSync(entry.dir, installPath, { recursive: true, filter: (src) => path.basename(src) !== ".git" });
  writable(installPath);
  record(at, id, { scope, installPath, version });
  const settingsFile = settingsOf(at, scope);
  const settings = readObject(settingsFile);
  const enabled = isRecord(settings.enabledPlugins) ? settings.enabledPlugins : {};
  settings.enabledPlugins = { ...enabled, [id]: true };
  writeJson(settingsFile, settings);
  return { id, version, installPath, scope, settingsFile };
}

export interface ListedPlugin {
  readonly id: string;
  readonly version: string;
  readonly scope: InstallScope;
  readonly enabled: boolean;
  readonly installPath: string;
  readonly installedAt?: string;
  readonly projectPath?: string;
}

/** The installed plugins this project sees (the user's, and its own project and local ones), and whether each is on. */
export function listPlugins(at: PluginPlaces): ListedPlugin[] {
  const switches = new Map(pluginSwitches(at.projectDir, at.userDir).map((s) => [s.id, s.enabled]));
  const out: ListedPlugin[] = [];
  for (const [id, installs] of installedPlugins(pluginsDirOf(at)))
    for (const i of installs) {
      if (i.scope !== "user" && i.projectPath !== at.projectDir) continue;
      out.push({ id, ...i, enabled: switches.get(id) === true });
    }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function record(
  at: PluginPlaces,
  id: string,
  install: { scope: InstallScope; installPath: string; version: string },
) {
  const file = path.join(pluginsDirOf(at), INSTALLED_PLUGINS);
  const data = readObject(file);
  const plugins = isRecord(data.plugins) ? data.plugins : {};
  const now = new Date().toISOString();
  const project = install.scope === "user" ? {} : { projectPath: at.projectDir };
  const others = (Array.isArray(plugins[id]) ? (plugins[id] as unknown[]) : []).filter(
    (e) =>
      !(
        isRecord(e) &&
        e.scope === install.scope &&
        (install.scope === "user" || e.projectPath === at.projectDir)
      ),
  );
  plugins[id] = [...others, { ...install, ...project, installedAt: now, lastUpdated: now }];
  writeJson(file, { version: 2, plugins });
}

function settingsOf(at: PluginPlaces, scope: InstallScope): string {
  const files = scopedSettings(at.projectDir, at.userDir);
  return (files.find((f) => f.scope === scope) ?? files[files.length - 1])?.file as string;
}

/** A JSON object file, or `{}` when it is missing; one that is not an object is not overwritten. */
function readObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file} is not valid JSON (${(e as Error).message}); it is left as it is`);
  }
  if (!isRecord(value)) throw new ConfigError(`${file} is not a JSON object; it is left as it is`);
  return value;
}

function writeJson(file: string, value: unknown): void {
  writeFileWhole(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The copy can be replaced by the next install, whatever the source's modes were. */
function writable(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(entry.parentPath, entry.name);
    if (!entry.isSymbolicLink()) chmodSync(p, statSync(p).mode | 0o200);
  }
  chmodSync(dir, statSync(dir).mode | 0o200);
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
