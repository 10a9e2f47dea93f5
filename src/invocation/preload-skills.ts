import type { SkillDefinition, SubagentDefinition } from "../definitions/types.js";
import { type Hooks, mergeHooks } from "../loop/hooks.js";
import { decide, denialText, intersect } from "../permissions/index.js";
import type { DecideContext, PermissionList } from "../permissions/types.js";
import { joinSandbox, type SandboxSetting } from "../sandbox/sandbox-setting.js";
import { loadedNames } from "./find-invocable.js";
import { byName, type HopCore } from "./hop-core.js";
import type { BodyPrompt } from "./run-types.js";

/**
 * Why a subagent may not preload the skill `name` under `list` (its own ∩ its caller's), or the
 * skill: it must exist, be one a model may invoke, and be allowed to it as a Skill call is. One
 * rule for `agentmd check` and for the run, so neither skips what the other refuses.
 */
export function preloadRefusal(
  skills: ReadonlyMap<string, SkillDefinition>,
  list: PermissionList,
  name: string,
  judged: DecideContext,
): SkillDefinition | string {
  const skill = byName(skills, name);
  if (!skill)
    return `preloads the skill '${name}', which is not defined${loadedNames(name, [...skills.keys()])}`;
  if (skill.disableModelInvocation)
    return `preloads the skill '${name}', which only a user may invoke (disable-model-invocation)`;
  const d = decide(list, { tool: "Skill", input: { skill: skill.name } }, judged);
  if (d.kind === "denied") return `preloads the skill '${name}', which it may not invoke: ${denialText(d)}`;
  return skill;
}

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
