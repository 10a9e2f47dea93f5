import { judgesName } from "../permissions/subject-specs.js";
import { TOOL_ALIASES } from "../permissions/tool-matcher.js";
import type { ToolPermissionSpec, ToolSpecs } from "../permissions/types.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { createToolRegistry, type ToolRegistry } from "../tools/registry.js";
import type { Tool } from "../tools/types.js";

/** Task and Skill are made per run (their enums depend on the run), but are judged from the start. */
export const TASK_PERMISSION: ToolPermissionSpec = judgesName("subagent_type");
export const SKILL_PERMISSION: ToolPermissionSpec = judgesName("skill");
const PER_RUN_TOOLS: readonly [string, ToolPermissionSpec][] = [
  ["Task", TASK_PERMISSION],
  ["Skill", SKILL_PERMISSION],
];

/**
 * The tools every run of a runner can have, registered once, and what derives from them: how each
 * is judged (the permission engine's specs) and the names list entries are checked against.
 */
export interface ToolCatalog {
  readonly registry: ToolRegistry;
  readonly specs: ToolSpecs;
  /** Every tool name a list may use, aliases included (`Agent`). */
  readonly names: readonly string[];
}

export function toolCatalog(tools: readonly Tool[]): ToolCatalog {
  const registry = createToolRegistry(tools);
  const specs = new Map<string, ToolPermissionSpec>(PER_RUN_TOOLS);
  for (const [name, spec] of registry.specs) specs.set(name, spec);
  // ToolSearch joins a run whose MCP tools are deferred (src/invocation/run-tools.ts).
  const names = [...registry.all.map((r) => r.tool.name), ...PER_RUN_TOOLS.map(([n]) => n), "ToolSearch"];
  for (const [alias, target] of Object.entries(TOOL_ALIASES)) if (names.includes(target)) names.push(alias);
  return { registry, specs, names };
}

/** The catalog of agentmd's own tools, for commands that judge lists without running (check, tools). */
export function builtinCatalog(): ToolCatalog {
  return toolCatalog(createBuiltinTools());
}
