import { decide } from "../permissions/decide.js";
import type { PermissionList } from "../permissions/types.js";
import type { Core } from "./core.js";

/** The subagents a run may spawn: those its effective list allows `Task` to name. */
export function allowedSubagents(core: Core, list: PermissionList) {
  return [...core.agents.values()].filter(
    (a) =>
      decide(
        list,
        { tool: "Task", input: { subagent_type: a.name } },
        { specs: core.catalog.specs, cwd: core.cwd },
      ).kind === "allowed",
  );
}

/** The skills the model may invoke: allowed by `Skill`/`Skill(pattern)`, minus disable-model-invocation. */
export function modelSkills(core: Core, list: PermissionList) {
  return [...core.skills.values()].filter(
    (s) =>
      s.disableModelInvocation !== true &&
      decide(list, { tool: "Skill", input: { skill: s.name } }, { specs: core.catalog.specs, cwd: core.cwd })
        .kind === "allowed",
  );
}

/** The skill catalog for the system prompt: name and description of each skill the model may use. */
export function skillCatalog(core: Core, list: PermissionList): string {
  const skills = modelSkills(core, list);
  if (skills.length === 0) return "";
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return `## Skills\n\nUse the Skill tool to load one of these when the task calls for it:\n\n${lines.join("\n")}`;
}
