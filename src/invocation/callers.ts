import type { Hooks } from "../loop/hooks.js";
import { resolveModel } from "../model/models.js";
import type { PermissionList } from "../permissions/types.js";
import type { SandboxSetting } from "../sandbox/sandbox-setting.js";
import type { HopCore } from "./hop-core.js";
import type { Memory } from "./memory.js";
import type { Caller, RunSpec } from "./run-types.js";

/** A user at the top: the session's ceiling (the main agent's list, the settings' denies) bounds everything they start. */
export function userCaller(
  core: HopCore & { readonly memory?: Memory; readonly system?: string },
  model?: string,
): Caller {
  const main = core.main;
  return {
    list: core.ceiling,
    model: model ? resolveModel(model) : core.settings.model,
    hooks: core.hooks,
    depth: 0,
    self: {
      agent: main?.name ?? "main",
      system: core.system ?? [main?.body.trim(), core.memory?.text].filter(Boolean).join("\n\n"),
      maxIterations: core.settings.maxIterations,
      ...(core.settings.outputSchema && { outputSchema: core.settings.outputSchema }),
    },
    // The runner's sandbox (option > agent.md), inherited by everything the user starts.
    sandbox: core.settings.sandbox,
  };
}

/**
 * A run as the caller of what its tools start (Task, Skill): its list, hooks, pre-approvals and
 * sandbox as they are now (an inline skill may have narrowed them), one level deeper.
 */
export function childCaller(
  spec: RunSpec,
  now: {
    readonly list: PermissionList;
    readonly hooks: Hooks;
    readonly approved?: readonly PermissionList[];
    readonly sandbox?: SandboxSetting;
  },
  runId?: string,
): Caller {
  return {
    list: now.list,
    model: spec.model,
    hooks: now.hooks,
    depth: spec.depth + 1,
    parentRunId: runId,
    mcpScope: spec.mcpScope,
    self: {
      agent: spec.agent,
      system: spec.system,
      maxIterations: spec.maxIterations,
      ...(spec.outputSchema && { outputSchema: spec.outputSchema }),
      ...(spec.effort && { effort: spec.effort }),
      ...(spec.thinking !== undefined && { thinking: spec.thinking }),
    },
    sandbox: now.sandbox,
    approved: now.approved,
    ...(spec.permissionMode && { permissionMode: spec.permissionMode }),
    ...(spec.workdir && { workdir: spec.workdir }),
  };
}
