import { installedPlugins } from "../definitions/marketplace.js";
import { readPluginFolder } from "../definitions/plugin-folder.js";
import { type PluginPlan, pluginPlans } from "../definitions/plugins.js";
import type { InstallScope, PluginPlaces } from "./plugin-install.js";
import { pluginsDirOf } from "./plugin-install.js";

/**
 * `agentmd plugin list`: every plugin a run in this folder would have, from the same resolution
 * the run uses (`pluginPlans`), and the installs no settings enable; each with where it came from.
 */

/** Where a run reads a plugin from. */
export type PluginSource =
  | "user install"
  | "project install"
  | "local install"
  | "user marketplace"
  | "project marketplace"
  | "not found";

export interface ListedPlugin {
  readonly id: string;
  readonly version: string;
  /** The install's scope; for a plugin that is not installed, the scope of the settings enabling it. */
  readonly scope: InstallScope;
  /** What the settings (local over project over user) say. */
  readonly enabled: boolean;
  /** The settings file whose `enabledPlugins` decides, and its scope; absent when none names it. */
  readonly enabledIn?: { readonly scope: InstallScope; readonly file: string };
  /** A run in this folder has it: enabled, found, and its files load. */
  readonly inRun: boolean;
  readonly source: PluginSource;
  /** The folder a run reads (`${CLAUDE_PLUGIN_ROOT}`). */
  readonly path?: string;
  /** The marketplace it is read from, when it is not installed. */
  readonly marketplace?: { readonly name: string; readonly dir: string; readonly declaredIn: string };
  /** `user`: the user's own code, runs in any folder; `project`: the folder's code, runs once it is trusted. */
  readonly owner: "user" | "project";
  readonly installPath?: string;
  readonly installedAt?: string;
  readonly projectPath?: string;
  /** Why a run does not have it, though it is enabled. */
  readonly problem?: string;
}

/** The plugins of the project `at` sees (see the module's comment), sorted by id. */
export function listPlugins(at: PluginPlaces): ListedPlugin[] {
  const pluginsDir = pluginsDirOf(at);
  const { plans } = pluginPlans(at.projectDir, at.userDir, pluginsDir);
  const used = new Set<string>();
  const out = plans.map((plan) => listed(plan, at, used));
  const seen = new Set(out.map((p) => p.id));
  for (const [id, installs] of installedPlugins(pluginsDir))
    for (const i of installs) {
      if (seen.has(id) || (i.scope !== "user" && i.projectPath !== at.projectDir)) continue;
      seen.add(id);
      out.push({
        id,
        ...i,
        enabled: false,
        inRun: false,
        source: `${i.scope} install`,
        path: i.installPath,
        owner: i.scope === "user" ? "user" : "project",
      });
    }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One plan as listed; `used` holds the plugin names a run already has (the first of a name wins). */
function listed(plan: PluginPlan, at: PluginPlaces, used: Set<string>): ListedPlugin {
  const sw = plan.switch;
  const base = {
    id: sw.id,
    enabled: sw.enabled,
    enabledIn: { scope: sw.scope, file: sw.file },
    owner: plan.owner,
  };
  const place = plan.place;
  if (!place)
    return {
      ...base,
      version: "",
      scope: sw.scope,
      inRun: false,
      source: "not found",
      problem: plan.problem ?? "",
    };
  const read = readPluginFolder({
    root: place.root,
    ...(place.version !== undefined && { version: place.version }),
    ...(place.marketplace && { top: place.marketplace.dir }),
    id: sw.id,
    marketplace: plan.market,
    scope: sw.scope,
    enabled: sw.enabled,
    owner: plan.owner,
    pluginsDir: pluginsDirOf(at),
    projectDir: at.projectDir,
  });
  const errors = read.diagnostics.filter((d) => d.severity === "error");
  const name = read.plugin?.name;
  const problem = errors[0]
    ? `${errors[0].file}:${errors[0].line}: ${errors[0].message}`
    : sw.enabled && name !== undefined && used.has(name)
      ? `another enabled plugin named '${name}' is used instead`
      : undefined;
  if (sw.enabled && name !== undefined && !problem) used.add(name);
  const i = place.install;
  const m = place.marketplace;
  return {
    ...base,
    version: read.plugin?.version ?? place.version ?? "",
    scope: i ? i.scope : sw.scope,
    inRun: sw.enabled && read.plugin !== undefined && !problem,
    source: i ? `${i.scope} install` : `${m?.owner ?? "project"} marketplace`,
    path: place.root,
    ...(m && { marketplace: { name: m.name, dir: m.dir, declaredIn: m.file } }),
    ...(i && {
      installPath: i.installPath,
      ...(i.installedAt !== undefined && { installedAt: i.installedAt }),
      ...(i.projectPath !== undefined && { projectPath: i.projectPath }),
    }),
    ...(problem && { problem }),
  };
}
