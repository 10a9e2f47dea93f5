import path from "node:path";
import { readJsonFile } from "./json-file.js";
import { installedPlugins, knownMarketplaces, marketplaceDir, readMarketplace } from "./marketplace.js";
import { isDirectory, type Plugin, readPluginFolder } from "./plugin-folder.js";
import { PROJECT_SETTINGS, USER_SETTINGS } from "./project-inputs.js";
import type { Diagnostic } from "./types.js";

/**
 * The plugins a project runs with: those `enabledPlugins` turns on (merged key by key, the local
 * settings over the project's over the user's), found where `agentmd plugin install` put them or in
 * a local marketplace of `extraKnownMarketplaces` or `known_marketplaces.json`; and the folders of
 * `--plugin-dir`, which win over an enabled plugin of the same name.
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

type Scope = "user" | "project" | "local";

export interface PluginSwitch {
  readonly id: string;
  readonly enabled: boolean;
  readonly scope: Scope;
  readonly file: string;
}

/** Each `name@marketplace` of the settings' `enabledPlugins`, with the scope whose value wins. */
export function pluginSwitches(root: string, userDir: string | undefined): PluginSwitch[] {
  const out = new Map<string, PluginSwitch>();
  for (const { file, scope } of scopedSettings(root, userDir)) {
    const v = settingsValue(file);
    const enabled = v?.enabledPlugins;
    if (!isRecord(enabled)) continue;
    for (const [id, on] of Object.entries(enabled))
      if (typeof on === "boolean") out.set(id, { id, enabled: on, scope, file });
  }
  return [...out.values()];
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
  const markets = marketplaces(root, options.userDir, pluginsDir);
  const installed = installedPlugins(pluginsDir);
  for (const sw of pluginSwitches(root, options.userDir)) {
    if (!sw.enabled) continue;
    const at = sw.id.lastIndexOf("@");
    const name = at > 0 ? sw.id.slice(0, at) : sw.id;
    const market = at > 0 ? sw.id.slice(at + 1) : "";
    if (given.has(name)) continue;
    const place = locate(name, market, sw, root, installed, markets);
    if (typeof place === "string") {
      diagnostics.push({
        file: sw.file,
        line: 1,
        column: 1,
        severity: "warning",
        code: "plugin-not-found",
        message: `enabled plugin '${sw.id}' ${place}; it is not used (agentmd fetches nothing: 'agentmd plugin install ${sw.id}' after 'agentmd plugin marketplace add DIR')`,
      });
      continue;
    }
    const read = readPluginFolder({
      ...place,
      id: sw.id,
      marketplace: market,
      scope: sw.scope,
      enabled: true,
      owner: sw.scope === "user" ? "user" : "project",
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
  installed: ReadonlyMap<
    string,
    readonly { scope: string; installPath: string; version: string; projectPath?: string }[]
  >,
  markets: ReadonlyMap<string, string>,
): { root: string; version?: string } | string {
  const installs = installed.get(sw.id) ?? [];
  const mine =
    installs.find((i) => i.scope !== "user" && i.projectPath === root && isDirectory(i.installPath)) ??
    installs.find((i) => i.scope === "user" && isDirectory(i.installPath)) ??
    // A project's install, read from another copy of it (a revision `audit --diff` compares).
    (sw.scope !== "user" ? installs.find((i) => isDirectory(i.installPath)) : undefined);
  if (mine) return { root: mine.installPath, version: mine.version };
  const dir = markets.get(market);
  if (dir === undefined)
    return `is not installed, and its marketplace '${market}' is not a known local folder`;
  const m = readMarketplace(dir);
  if (!("plugins" in m)) return `cannot be found: ${m.message}`;
  const entry = m.plugins.find((p) => p.name === name);
  if (!entry) return `is not in the marketplace '${market}' (${dir})`;
  if (!entry.dir) return `has a source in '${market}' that is not a local folder`;
  return { root: entry.dir, ...(entry.version !== undefined && { version: entry.version }) };
}

/** Local marketplaces: those added (`known_marketplaces.json`), then the settings' (which win). */
export function marketplaces(
  root: string,
  userDir: string | undefined,
  pluginsDir: string,
): Map<string, string> {
  const out = knownMarketplaces(pluginsDir);
  for (const { file, scope } of scopedSettings(root, userDir)) {
    const extra = settingsValue(file)?.extraKnownMarketplaces;
    if (!isRecord(extra)) continue;
    const base = scope === "user" ? path.dirname(userDir ?? root) : root;
    for (const [name, value] of Object.entries(extra)) {
      const dir = marketplaceDir(value, base);
      if (dir) out.set(name, dir);
    }
  }
  return out;
}

/** The settings files, least specific first, with their scopes. */
export function scopedSettings(root: string, userDir: string | undefined): { file: string; scope: Scope }[] {
  return [
    ...(userDir && userDir !== path.join(root, ".claude")
      ? [{ file: path.join(userDir, USER_SETTINGS), scope: "user" as const }]
      : []),
    { file: path.join(root, PROJECT_SETTINGS[0]), scope: "project" },
    { file: path.join(root, PROJECT_SETTINGS[1]), scope: "local" },
  ];
}

function settingsValue(file: string): Record<string, unknown> | undefined {
  const read = readJsonFile(file);
  return read.kind === "ok" && isRecord(read.json.value) ? read.json.value : undefined;
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
