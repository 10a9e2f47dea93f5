import type { ClaudeSettings } from "../definitions/settings.js";
import { hooksAreOff, settingsHooks } from "../definitions/settings-hooks.js";
import type { HooksSetting, MainAgentDefinition, Plugin } from "../definitions/types.js";
import { mergeHooks } from "../loop/hooks.js";
import { compileList } from "../permissions/index.js";
import type { CompileContext, PermissionList } from "../permissions/types.js";
import { projectInventory } from "../trust/inventory/inventory.js";
import { protectedPaths } from "../trust/inventory/protected.js";
import { withholdHooks } from "../trust/restrict.js";
import { RUNNER_DENY } from "./approvals.js";
import { protectedWriteDenies } from "./protected-paths.js";
import type { RunnerOptions } from "./runner-options.js";

// What binds every run of a runner beside its session's lists, apart from the rest of the runner
// (core.ts), so that `agentmd tools` can say it without loading what runs.

/**
 * The runner's own deny rules, which bind every run beside the session's: its sessions, and the
 * protected paths (the files that define runs) no main list names.
 */
export function runnerDenyList(
  main: MainAgentDefinition | undefined,
  claude: ClaudeSettings,
  options: RunnerOptions,
  ctx: CompileContext,
): PermissionList {
  if (options.projectDir === false) return compileList(undefined, RUNNER_DENY, ctx);
  const explicit = [...(main?.allowedTools?.entries ?? []), ...claude.allow];
  const commands = Object.values(sessionHooks(main, claude, options) ?? {})
    .flat()
    .flatMap((h) => ("command" in h && typeof h.command === "string" ? [h.command] : []));
  const inventory = options.inventory ?? projectInventory(ctx.projectDir, ctx.home);
  const paths = protectedPaths(inventory, ctx.projectDir, commands);
  return compileList(undefined, [...RUNNER_DENY, ...protectedWriteDenies(paths, explicit, ctx)], ctx);
}

/**
 * agent.md's hooks, then the settings' and the enabled plugins' (unless the settings turn all hooks
 * off), then those given in code.
 */
export function sessionHooks(
  main: MainAgentDefinition | undefined,
  claude: ClaudeSettings,
  options: RunnerOptions,
  plugins?: readonly Plugin[],
) {
  const fromPlugins = plugins && pluginHooks(plugins, options, claude);
  return mergeHooks(main?.hooks, settingsHooks(claude), fromPlugins, options.hooks);
}

/**
 * The plugins' hooks in the order they were enabled: a project's plugin's withheld when restricted;
 * none whose owner the settings' `disableAllHooks` turns off (a project's file: the project's only).
 */
function pluginHooks(
  plugins: readonly Plugin[],
  options: RunnerOptions,
  claude: ClaudeSettings,
): HooksSetting {
  return mergeHooks(
    ...plugins.map((p) => {
      if (!p.hooks || hooksAreOff(claude, p.owner)) return undefined;
      return options.restricted && p.owner === "project" ? withholdHooks(p.hooks) : p.hooks;
    }),
  ) as HooksSetting;
}
