import { decide } from "../permissions/decide.js";
import type { PermissionList } from "../permissions/types.js";
import type { HopCore } from "./hop-core.js";

type CatalogCore = Pick<HopCore, "agents" | "skills" | "catalog" | "cwd">;

/** The subagents a run may spawn: those its effective list allows `Task` to name. */
export function allowedSubagents(core: CatalogCore, list: PermissionList) {
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
export function modelSkills(core: CatalogCore, list: PermissionList) {
  return [...core.skills.values()].filter(
    (s) =>
      s.disableModelInvocation !== true &&
      decide(list, { tool: "Skill", input: { skill: s.name } }, { specs: core.catalog.specs, cwd: core.cwd })
        .kind === "allowed",
  );
}

/**
 * What a run may start with its own tools: subagents through Task (offered only below the depth
 * limit) and skills through Skill. One rule for a run's tools and for `agentmd audit`'s walk.
 */
export function runStarts(core: HopCore, run: { readonly list: PermissionList; readonly depth: number }) {
  return {
    subagents: run.depth < core.settings.maxDepth ? allowedSubagents(core, run.list) : [],
    skills: modelSkills(core, run.list),
  };
}

/** The skill catalog for the system prompt: name and description of each skill the model may use. */
export function skillCatalog(core: CatalogCore, list: PermissionList): string {
  const skills = modelSkills(core, list);
  if (skills.length === 0) return "";
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return `## Skills\n\nUse the Skill tool to load one of these when the task calls for it:\n\n${lines.join("\n")}`;
}
