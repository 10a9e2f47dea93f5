import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";
import {
  INSTALLED_PLUGINS,
  KNOWN_MARKETPLACES,
  MARKETPLACE_JSON,
  readMarketplace,
} from "../definitions/marketplace.js";
import { readPluginFolder } from "../definitions/plugin-folder.js";
import { segmentProblem } from "../definitions/plugin-segment.js";
import { type MarketplaceSource, marketplaceSources, scopedSettings } from "../definitions/plugins.js";
import { ConfigError } from "../shared/errors.js";
import { isInside } from "../shared/is-inside.js";
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

export const pluginsDirOf = (at: PluginPlaces) => path.join(at.userDir, "plugins");

/** Adds the marketplace in folder `dir` to `known_marketplaces.json`; returns its name. */
export function addMarketplace(at: PluginPlaces, dir: string): string {
  const abs = path.resolve(dir);
  const m = readMarketplace(abs);
  if (!("plugins" in m)) throw new ConfigError(`${m.file}:${m.line}:${m.column}: ${m.message}`);
  const bad = segmentProblem("marketplace name", m.name);
  if (bad) throw new ConfigError(`${path.join(abs, MARKETPLACE_JSON)}: ${bad}; the marketplace is not added`);
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
  /** The marketplace the plugin was taken from: its folder, and who declared it where. */
  readonly from: MarketplaceSource;
}

/**
 * Installs `name@marketplace`: copies its folder to
 * `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/`, records it in
 * `installed_plugins.json` and enables it in the settings of `scope`, keeping their other keys.
 * The name, the marketplace and the version are checked as path segments, and the folder as lying
 * inside the cache, before anything is removed or written. A user-scope install never takes the
 * plugin of a marketplace only the project declares (the repository's code would become the
 * user's, run in every folder): that is refused, naming the two ways on. Throws `ConfigError` for
 * a marketplace or plugin that is not there, or a plugin that does not load.
 */
export function installPlugin(at: PluginPlaces, id: string, scope: InstallScope): Installed {
  const { name, market } = pluginId(id);
  const from = marketplaceSources(at.projectDir, at.userDir, pluginsDirOf(at)).markets.get(market);
  if (from === undefined)
    throw new ConfigError(
      `Marketplace "${market}" not found (add it with 'agentmd plugin marketplace add DIR')`,
    );
  if (scope === "user" && from.owner === "project")
    throw new ConfigError(
      `Marketplace "${market}" is declared by this project (${from.file}: ${from.dir}), not by you: a user-scope install would make the repository's plugin your own code, run in every folder. Install it for this project only with --scope project (it then runs once the folder is trusted), or make the marketplace yours first: agentmd plugin marketplace add ${from.dir}`,
    );
  const m = readMarketplace(from.dir);
  if (!("plugins" in m)) throw new ConfigError(`${m.file}:${m.line}: ${m.message}`);
  const entry = m.plugins.find((p) => p.name === name);
  if (!entry) throw new ConfigError(`Plugin "${name}" not found in marketplace "${market}"`);
  if (!entry.dir) throw new ConfigError(`Plugin "${name}" of "${market}" is not in a local folder`);
  const read = readPluginFolder({
    root: entry.dir,
    top: from.dir,
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
  const installPath = cacheFolder(pluginsDirOf(at), market, name, version);
  rmSync(installPath, { recursive: true, force: true });
  cpSync(entry.dir, installPath, { recursive: true, filter: (src) => path.basename(src) !== ".git" });
  writable(installPath);
  record(at, id, { scope, installPath, version });
  const settingsFile = setSwitch(at, id, scope, true);
  return { id, version, installPath, scope, settingsFile, from };
}

/** `name@marketplace`, each a path segment (see `plugin-segment.ts`), or a `ConfigError` saying why not. */
export function pluginId(id: string): { name: string; market: string } {
  const sep = id.lastIndexOf("@");
  if (sep <= 0 || sep === id.length - 1)
    throw new ConfigError(`name the plugin as NAME@MARKETPLACE, not "${id}"`);
  const name = id.slice(0, sep);
  const market = id.slice(sep + 1);
  const problem = segmentProblem("plugin name", name) ?? segmentProblem("marketplace name", market);
  if (problem) throw new ConfigError(`${problem}; nothing was changed`);
  return { name, market };
}

/**
 * `cache/<market>/<name>/<version>` under `pluginsDir`, once each part is a path segment and each
 * folder of it that exists is a real folder inside the cache (not a symlink, which could lead
 * anywhere); the folders above it are made, and checked again. Throws `ConfigError` before
 * anything is removed or written.
 */
export function cacheFolder(pluginsDir: string, market: string, name: string, version: string): string {
  const problem =
    segmentProblem("marketplace name", market) ??
    segmentProblem("plugin name", name) ??
    segmentProblem("version", version);
  if (problem) throw new ConfigError(`${problem}; nothing was installed`);
  const cache = path.join(pluginsDir, "cache");
  const target = path.join(cache, market, name, version);
  const outside = (p: string) =>
    new ConfigError(`${p} does not lie inside the plugin cache ${cache}; nothing was installed`);
  if (target === cache || !isInside(target, cache)) throw outside(target);
  mkdirSync(cache, { recursive: true });
  const real = realpathSync(cache);
  const check = (p: string) => {
    let link: boolean;
    try {
      link = lstatSync(p).isSymbolicLink();
    } catch {
      return false;
    }
    if (link || !isInside(realpathSync(p), real)) throw outside(p);
    return true;
  };
  for (const p of [path.join(cache, market), path.join(cache, market, name), target]) if (!check(p)) break;
  mkdirSync(path.dirname(target), { recursive: true });
  check(path.dirname(target));
  return target;
}

/** Sets `enabledPlugins[id]` in the settings of `scope`, keeping their other keys; returns the file. */
export function setSwitch(at: PluginPlaces, id: string, scope: InstallScope, on: boolean): string {
  const settingsFile = settingsOf(at, scope);
  const settings = readObject(settingsFile);
  const enabled = isRecord(settings.enabledPlugins) ? settings.enabledPlugins : {};
  settings.enabledPlugins = { ...enabled, [id]: on };
  writeJson(settingsFile, settings);
  return settingsFile;
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

export function settingsOf(at: PluginPlaces, scope: InstallScope): string {
  const files = scopedSettings(at.projectDir, at.userDir);
  return (files.find((f) => f.scope === scope) ?? files[files.length - 1])?.file as string;
}

/** A JSON object file, or `{}` when it is missing; one that is not an object is not overwritten. */
export function readObject(file: string): Record<string, unknown> {
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

export function writeJson(file: string, value: unknown): void {
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

export const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
