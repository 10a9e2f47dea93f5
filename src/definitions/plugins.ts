import path from "node:path";
import { type InstalledPlugin, installedPlugins, readMarketplace } from "./marketplace.js";
import { isDirectory, type Plugin, readPluginFolder } from "./plugin-folder.js";
import {
  type MarketplaceSource,
  marketplaceSources,
  type SettingsScope,
  scopedSettings,
  settingsValue,
} from "./plugin-marketplaces.js";
import { splitPluginId } from "./plugin-segment.js";
import type { Diagnostic } from "./types.js";

export { type MarketplaceSource, marketplaceSources, scopedSettings } from "./plugin-marketplaces.js";

/**
 * The plugins a project runs with: those `enabledPlugins` turns on (merged key by key, the local
 * settings over the project's over the user's), found where `agentmd plugin install` put them or in
 * a local marketplace of `extraKnownMarketplaces` or `known_marketplaces.json` (the user's never
 * shadowed by the project's: see `marketplaceSources`); and the folders of `--plugin-dir`, which
 * win over an enabled plugin of the same name. A plugin is the user's own code only when the user's
 * settings enable it and its folder is the user's (a user-scope install, a marketplace of theirs);
 * otherwise it is the project's, trusted with the folder.
 */

export interface PluginOptions {
  /** The user's `~/.claude` folder: their settings, and `plugins/` with what is installed. */
  readonly userDir?: string;
  /** Plugin folders given on the command line (`--plugin-dir`). */
  readonly pluginDirs?: readonly string[];
}

export interface PluginSet {
  readonly plugins: readonly Plugin[];
  readonly diagnostics: readonly Diagnostic[];
}

type Scope = SettingsScope;

export interface PluginSwitch {
  readonly id: string;
  readonly enabled: boolean;
  readonly scope: Scope;
  readonly file: string;
}

/**
 * Each `name@marketplace` of the settings' `enabledPlugins`, with the scope whose value wins. A key
 * that is not `name@marketplace` of two path segments is left out (`check` warns about it).
 */
export function pluginSwitches(root: string, userDir: string | undefined): PluginSwitch[] {
  const out = new Map<string, PluginSwitch>();
  for (const { file, scope } of scopedSettings(root, userDir)) {
    const enabled = settingsValue(file)?.enabledPlugins;
    if (!isRecord(enabled)) continue;
    for (const [id, on] of Object.entries(enabled))
      if (typeof on === "boolean" && splitPluginId(id)) out.set(id, { id, enabled: on, scope, file });
  }
  return [...out.values()];
}

/** Where an enabled plugin's folder is: an install of it, or its entry in a marketplace. */
export interface PluginPlace {
  readonly root: string;
  readonly version?: string;
  /** The install it is read from (`installed_plugins.json`). */
  readonly install?: InstalledPlugin;
  /** The marketplace it is read from, when it is not installed. */
  readonly marketplace?: MarketplaceSource;
}

/** One `enabledPlugins` key, resolved: where its folder is (or why it is found nowhere), and whose code it is. */
export interface PluginPlan {
  readonly switch: PluginSwitch;
  readonly name: string;
  readonly market: string;
  readonly place?: PluginPlace;
  readonly problem?: string;
  readonly owner: Plugin["owner"];
}

/** Every `enabledPlugins` key of the project at `root`, resolved, with the marketplaces' clashes. */
export function pluginPlans(
  root: string,
  userDir: string | undefined,
  pluginsDir: string,
): { plans: PluginPlan[]; markets: Map<string, MarketplaceSource>; diagnostics: Diagnostic[] } {
  const { markets, diagnostics } = marketplaceSources(root, userDir, pluginsDir);
  const installed = installedPlugins(pluginsDir);
  const userFile = scopedSettings(root, userDir).find((s) => s.scope === "user")?.file;
  const usersOn = userFile ? settingsValue(userFile)?.enabledPlugins : undefined;
  const plans = pluginSwitches(root, userDir).map((sw): PluginPlan => {
    const { name, market } = splitPluginId(sw.id) as { name: string; market: string };
    const place = locate(name, market, sw, root, installed.get(sw.id) ?? [], markets);
    if (typeof place === "string") return { switch: sw, name, market, problem: place, owner: "project" };
    const usersFolder = place.install ? place.install.scope === "user" : place.marketplace?.owner === "user";
    const usersSwitch = isRecord(usersOn) && usersOn[sw.id] === true;
    return { switch: sw, name, market, place, owner: usersFolder && usersSwitch ? "user" : "project" };
  });
  return { plans, markets, diagnostics };
}

/** The plugins of the project at `root` (see the module's comment). Contract: never throws. */
export function projectPlugins(root: string, options: PluginOptions = {}): PluginSet {
  const pluginsDir = options.userDir
    ? path.join(options.userDir, "plugins")
    : path.join(root, ".claude", "plugins");
  const diagnostics: Diagnostic[] = [];
  const plugins: Plugin[] = [];
  for (const dir of options.pluginDirs ?? []) {
    const read = readPluginFolder({
      root: path.resolve(dir),
      scope: "dir",
      enabled: true,
      owner: "user",
      pluginsDir,
      projectDir: root,
    });
    diagnostics.push(...read.diagnostics);
    if (read.plugin) plugins.push(read.plugin);
  }
  const given = new Set(plugins.map((p) => p.name));
  const planned = pluginPlans(root, options.userDir, pluginsDir);
  diagnostics.push(...planned.diagnostics);
  for (const plan of planned.plans) {
    const sw = plan.switch;
    if (!sw.enabled || given.has(plan.name)) continue;
    if (!plan.place) {
      diagnostics.push({
        file: sw.file,
        line: 1,
        column: 1,
        severity: "warning",
        code: "plugin-not-found",
        message: `enabled plugin '${sw.id}' ${plan.problem}; it is not used (agentmd fetches nothing: 'agentmd plugin install ${sw.id}' after 'agentmd plugin marketplace add DIR')`,
      });
      continue;
    }
    const read = readPluginFolder({
      root: plan.place.root,
      ...(plan.place.version !== undefined && { version: plan.place.version }),
      ...(plan.place.marketplace && { top: plan.place.marketplace.dir }),
      id: sw.id,
      marketplace: plan.market,
      scope: sw.scope,
      enabled: true,
      owner: plan.owner,
      pluginsDir,
      projectDir: root,
    });
    diagnostics.push(...read.diagnostics);
    if (read.plugin && !plugins.some((p) => p.name === read.plugin?.name)) plugins.push(read.plugin);
  }
  return { plugins, diagnostics };
}

/** Where an enabled plugin's folder is: its install, else its entry in a local marketplace. */
function locate(
  name: string,
  market: string,
  sw: PluginSwitch,
  root: string,
  installs: readonly InstalledPlugin[],
  markets: ReadonlyMap<string, MarketplaceSource>,
): PluginPlace | string {
  const mine =
    installs.find((i) => i.scope !== "user" && i.projectPath === root && isDirectory(i.installPath)) ??
    installs.find((i) => i.scope === "user" && isDirectory(i.installPath)) ??
    // A project's install, read from another copy of it (a revision `audit --diff` compares).
    (sw.scope !== "user" ? installs.find((i) => isDirectory(i.installPath)) : undefined);
  if (mine) return { root: mine.installPath, version: mine.version, install: mine };
  const source = markets.get(market);
  if (source === undefined)
    return `is not installed, and its marketplace '${market}' is not a known local folder`;
  const m = readMarketplace(source.dir);
  if (!("plugins" in m)) return `cannot be found: ${m.message}`;
  const entry = m.plugins.find((p) => p.name === name);
  if (!entry) return `is not in the marketplace '${market}' (${source.dir})`;
  if (!entry.dir) return `has a source in '${market}' that is not a local folder`;
  return {
    root: entry.dir,
    ...(entry.version !== undefined && { version: entry.version }),
    marketplace: source,
  };
}

/** Local marketplaces by name → folder (see `marketplaceSources`: the user's win over the project's). */
export function marketplaces(
  root: string,
  userDir: string | undefined,
  pluginsDir: string,
): Map<string, string> {
  const { markets } = marketplaceSources(root, userDir, pluginsDir);
  return new Map([...markets].map(([name, m]) => [name, m.dir]));
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
