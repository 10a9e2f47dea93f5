import type { SubagentDefinition } from "../definitions/types.js";
import { type Hooks, mergeHooks } from "../loop/hooks.js";
import { intersect } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { joinSandbox, type SandboxSetting } from "../sandbox/sandbox-setting.js";
import type { HopCore } from "./hop-core.js";
import { preloadRefusal } from "./preload-refusal.js";
import type { BodyPrompt } from "./run-types.js";

/** What a subagent's run is once its `skills:` are loaded into it, as an inline Skill call loads one. */
export interface Preloaded {
  readonly list: PermissionList;
  readonly hooks: Hooks;
  readonly sandbox: SandboxSetting | undefined;
  readonly prompts: readonly BodyPrompt[];
}

/**
 * The subagent's `skills:`, each judged by `preloadRefusal` under the list so far and then loaded
 * as an inline skill is: the run's list narrowed to (list ∩ skill's), its hooks joined, its sandbox
 * turned on where it asks; its body is made ready in the run and put in the run's system prompt.
 * A skill it may not preload refuses the run (a string): it is never skipped.
 */
export function preloadSkills(
  core: HopCore,
  sub: SubagentDefinition,
  run: { readonly list: PermissionList; readonly hooks: Hooks; readonly sandbox: SandboxSetting | undefined },
): Preloaded | string {
  let { list, hooks, sandbox } = run;
  const prompts: BodyPrompt[] = [];
  const judged = { specs: core.catalog.specs, cwd: core.cwd };
  for (const name of sub.skills ?? []) {
    const skill = preloadRefusal(core.skills, list, name, judged);
    if (typeof skill === "string") return `${sub.name} ${skill}, so it was not started`;
    list = intersect(list, core.listOf(skill));
    hooks = mergeHooks(hooks, skill.hooks);
    sandbox = joinSandbox(sandbox, skill.sandbox);
    prompts.push({
      kind: "body",
      body: skill.body,
      args: "",
      label: `the skill '${skill.name}'`,
      skillDir: skill.dir,
    });
  }
  return { list, hooks, sandbox, prompts };
}
