import { lstatSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { INSTALLED_PLUGINS, installedPlugins, readMarketplace } from "../definitions/marketplace.js";
import { marketplaceSources } from "../definitions/plugins.js";
import { ConfigError } from "../shared/errors.js";
import { isInside } from "../shared/is-inside.js";
import {
  type InstallScope,
  isRecord,
  type PluginPlaces,
  pluginId,
  pluginsDirOf,
  readObject,
  setSwitch,
  settingsOf,
  writeJson,
} from "./plugin-install.js";

/**
 * `agentmd plugin uninstall|enable|disable NAME@MARKETPLACE [--scope]`: the settings file of the
 * scope (`~/.claude/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`) and
 * `installed_plugins.json` edited as Claude Code edits them, their other keys kept.
 */

export interface Uninstalled {
  readonly id: string;
  readonly scope: InstallScope;
  /** The cache folders removed (none when another install still uses them). */
  readonly removed: readonly string[];
  /** The settings file whose `enabledPlugins` no longer names it, when it did. */
  readonly settingsFile?: string;
}

/**
 * Drops the install of `scope` (for a project or local scope, this project's) from
 * `installed_plugins.json`, its key from the scope's `enabledPlugins`, and its cache folder when no
 * other install uses it (and it lies inside the cache). A plugin neither installed nor named at
 * that scope is an error.
 */
export function uninstallPlugin(at: PluginPlaces, id: string, scope: InstallScope): Uninstalled {
  pluginId(id);
  const file = path.join(pluginsDirOf(at), INSTALLED_PLUGINS);
  const data = readObject(file);
  const plugins = isRecord(data.plugins) ? data.plugins : {};
  const entries = Array.isArray(plugins[id]) ? (plugins[id] as unknown[]) : [];
  const ours = (e: unknown) =>
    isRecord(e) && (e.scope ?? "user") === scope && (scope === "user" || e.projectPath === at.projectDir);
  const gone = entries.filter(ours);
  const settingsFile = settingsOf(at, scope);
  const settings = readObject(settingsFile);
  const enabled = isRecord(settings.enabledPlugins) ? settings.enabledPlugins : undefined;
  const named = enabled !== undefined && Object.hasOwn(enabled, id);
  if (gone.length === 0 && !named)
    throw new ConfigError(`Plugin "${id}" is not installed at scope ${scope} (see 'agentmd plugin list')`);
  if (gone.length > 0) {
    const kept = entries.filter((e) => !ours(e));
    if (kept.length > 0) plugins[id] = kept;
    else delete plugins[id];
    writeJson(file, { ...data, version: 2, plugins });
  }
  const used = new Set(
    Object.values(plugins).flatMap((list) =>
      (Array.isArray(list) ? list : []).flatMap((e) => (isRecord(e) ? [e.installPath] : [])),
    ),
  );
  const removed: string[] = [];
  for (const e of gone) {
    const p = isRecord(e) && typeof e.installPath === "string" ? e.installPath : undefined;
    if (p && !used.has(p) && insideCache(pluginsDirOf(at), p)) {
      rmSync(p, { recursive: true, force: true });
      removed.push(p);
    }
  }
  if (named && enabled) {
    delete enabled[id];
    writeJson(settingsFile, { ...settings, enabledPlugins: enabled });
  }
  return { id, scope, removed, ...(named && { settingsFile }) };
}

/**
 * Sets `enabledPlugins[id]` to `on` in the settings of `scope`; returns the file. Enabling needs the
 * plugin to be found: installed (for the user, or for this project), or in a known marketplace.
 */
export function switchPlugin(at: PluginPlaces, id: string, scope: InstallScope, on: boolean): string {
  const { name, market } = pluginId(id);
  if (on) {
    const installs = installedPlugins(pluginsDirOf(at)).get(id) ?? [];
    const installed = installs.some((i) => i.scope === "user" || i.projectPath === at.projectDir);
    const source = marketplaceSources(at.projectDir, at.userDir, pluginsDirOf(at)).markets.get(market);
    const m = source && readMarketplace(source.dir);
    const listed = m !== undefined && "plugins" in m && m.plugins.some((p) => p.name === name);
    if (!installed && !listed)
      throw new ConfigError(
        `Plugin "${id}" is not installed and not in a known marketplace (agentmd plugin install ${id})`,
      );
  }
  return setSwitch(at, id, scope, on);
}

/** Whether `p` is a real folder strictly inside the plugin cache (never a symlink out of it). */
function insideCache(pluginsDir: string, p: string): boolean {
  try {
    const cache = realpathSync(path.join(pluginsDir, "cache"));
    return !lstatSync(p).isSymbolicLink() && realpathSync(p) !== cache && isInside(realpathSync(p), cache);
  } catch {
    return false;
  }
}
