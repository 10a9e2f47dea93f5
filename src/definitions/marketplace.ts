import path from "node:path";
import type { DiagnosticSink } from "./diagnostics.js";
import { type JsonFile, readJsonFile } from "./json-file.js";
import { splitPluginId } from "./plugin-segment.js";
import type { Diagnostic } from "./types.js";

/**
 * Claude Code's plugin bookkeeping, read: a marketplace folder's `.claude-plugin/marketplace.json`,
 * and under `~/.claude/plugins/` the marketplaces added (`known_marketplaces.json`) and the plugins
 * installed (`installed_plugins.json`). agentmd reads local marketplaces only (a folder); it fetches
 * nothing.
 */

export const MARKETPLACE_JSON = ".claude-plugin/marketplace.json";
export const KNOWN_MARKETPLACES = "known_marketplaces.json";
export const INSTALLED_PLUGINS = "installed_plugins.json";

export interface MarketplaceEntry {
  readonly name: string;
  /** The plugin's folder, absolute; absent when its source is not a folder (a git or GitHub source). */
  readonly dir?: string;
  readonly version?: string;
}

export interface Marketplace {
  readonly name: string;
  readonly dir: string;
  readonly plugins: readonly MarketplaceEntry[];
}

/** The marketplace in folder `dir`, or why it cannot be read. Contract: never throws. */
export function readMarketplace(dir: string): Marketplace | Diagnostic {
  const file = path.join(dir, MARKETPLACE_JSON);
  const read = readJsonFile(file);
  const fail = (message: string, line = 1, column = 1): Diagnostic => ({
    file,
    line,
    column,
    severity: "error",
    code: "marketplace-json",
    message,
  });
  if (read.kind === "missing") return fail(`no ${MARKETPLACE_JSON} in ${dir}`);
  if (read.kind === "bad") return fail(`marketplace.json ${read.message}`, read.line, read.column);
  const v = read.json.value;
  if (!isRecord(v) || typeof v.name !== "string" || !Array.isArray(v.plugins))
    return fail('marketplace.json holds { "name": "…", "plugins": [ { "name": "…", "source": "./…" } ] }');
  const meta = isRecord(v.metadata) ? v.metadata : {};
  const base = path.resolve(dir, typeof meta.pluginRoot === "string" ? meta.pluginRoot : ".");
  const plugins: MarketplaceEntry[] = [];
  for (const p of v.plugins) {
    if (!isRecord(p) || typeof p.name !== "string") continue;
    const source = p.source;
    plugins.push({
      name: p.name,
      ...(typeof source === "string" && {
        dir:
          source.startsWith("./") || source === "." ? path.resolve(dir, source) : path.resolve(base, source),
      }),
      ...(typeof p.version === "string" && { version: p.version }),
    });
  }
  return { name: v.name, dir: path.resolve(dir), plugins };
}

/** A marketplace as settings and `known_marketplaces.json` write it: only a local folder is read. */
export function marketplaceDir(value: unknown, base: string): string | undefined {
  const source = isRecord(value) ? value.source : undefined;
  if (!isRecord(source)) return undefined;
  const p = source.path;
  if ((source.source === "directory" || source.source === "file") && typeof p === "string")
    return path.resolve(base, source.source === "file" ? path.dirname(path.dirname(p)) : p);
  return undefined;
}

/** `~/.claude/plugins/known_marketplaces.json`: name → folder. */
export function knownMarketplaces(pluginsDir: string): Map<string, string> {
  const read = readJsonFile(path.join(pluginsDir, KNOWN_MARKETPLACES));
  const out = new Map<string, string>();
  if (read.kind !== "ok" || !isRecord(read.json.value)) return out;
  for (const [name, value] of Object.entries(read.json.value)) {
    const dir = marketplaceDir(value, pluginsDir);
    if (dir) out.set(name, dir);
  }
  return out;
}

export interface InstalledPlugin {
  readonly scope: "user" | "project" | "local";
  readonly installPath: string;
  readonly version: string;
  readonly installedAt?: string;
  /** The project of a project or local install. */
  readonly projectPath?: string;
}

/** `~/.claude/plugins/installed_plugins.json` (version 2): `name@marketplace` → its installs. */
export function installedPlugins(pluginsDir: string): Map<string, InstalledPlugin[]> {
  const read = readJsonFile(path.join(pluginsDir, INSTALLED_PLUGINS));
  const out = new Map<string, InstalledPlugin[]>();
  if (read.kind !== "ok" || !isRecord(read.json.value)) return out;
  const plugins = read.json.value.plugins;
  if (!isRecord(plugins)) return out;
  for (const [id, list] of Object.entries(plugins)) {
    const entries = (Array.isArray(list) ? list : [list]).filter(
      (e): e is InstalledPlugin =>
        isRecord(e) && typeof e.installPath === "string" && typeof e.version === "string",
    );
    out.set(
      id,
      entries.map((e) => ({ ...e, scope: e.scope === "project" || e.scope === "local" ? e.scope : "user" })),
    );
  }
  return out;
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** `enabledPlugins` maps `name@marketplace` to true or false; `extraKnownMarketplaces` maps names to sources. */
export function checkPluginSettings(
  value: Record<string, unknown>,
  json: JsonFile,
  sink: DiagnosticSink,
): void {
  const enabled = value.enabledPlugins;
  if (enabled !== undefined && !isRecord(enabled))
    sink.at(json.locate(["enabledPlugins"]))(
      "error",
      "settings-type",
      "'enabledPlugins' must map \"name@marketplace\" to true or false",
    );
  for (const [id, on] of Object.entries(isRecord(enabled) ? enabled : {})) {
    if (typeof on !== "boolean")
      sink.at(json.locate(["enabledPlugins", id]))(
        "error",
        "settings-type",
        `'enabledPlugins.${id}' must be true or false`,
      );
    else if (!splitPluginId(id))
      sink.at(json.locateKey(["enabledPlugins", id]))(
        "warning",
        "plugin-id",
        `'enabledPlugins' key ${JSON.stringify(id)} is not NAME@MARKETPLACE (letters, digits, '.', '_', '+' and '-' each); it is not used`,
      );
  }
  const extra = value.extraKnownMarketplaces;
  if (extra !== undefined && !isRecord(extra))
    sink.at(json.locate(["extraKnownMarketplaces"]))(
      "error",
      "settings-type",
      "'extraKnownMarketplaces' must map marketplace names to { \"source\": { … } }",
    );
}
