import type { SkillDefinition } from "../definitions/types.js";
import { decide, denialText } from "../permissions/index.js";
import type { DecideContext, PermissionList } from "../permissions/types.js";
import { loadedNames } from "./find-invocable.js";
import { byName } from "./hop-core.js";

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
