import { addUsage, resolveModel } from "../model/models.js";
import { BUILTIN_PERMISSION_SPECS } from "../permissions/builtin-specs.js";
import { allowsNothing, intersect, ruleTexts } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { fail, ok, runSafely } from "../tools/define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../tools/types.js";
import { allowedSubagents, modelSkills } from "./catalog.js";
import { expandBody, shownPath } from "./expand-body.js";
import { mergeHooks, type ParentRun, startRun } from "./start-run.js";

/**
 * The Task tool of one run (alias Agent): spawns a subagent as a child run whose effective list is
 * the parent's ∩ the subagent's (deny lists inherited). Offered only below the depth limit and when
 * some subagent is allowed; its `subagent_type` is an enum of exactly those.
 */
export function createTaskTool(parent: ParentRun): Tool | undefined {
  const { core, spec } = parent;
  const allowed = allowedSubagents(core, spec.list);
  if (allowed.length === 0) return undefined;
  const listing = allowed.map((a) => `- ${a.name}: ${a.description}`).join("\n");
  return {
    name: "Task",
    description: `Starts a subagent on a task and returns its final answer. The subagent works on its own, with its own tools (never more than yours), and sees only the prompt you give it, so include everything it needs.\n\nSubagents:\n${listing}`,
    inputSchema: {
      type: "object",
      properties: {
        description: { type: "string", description: "A short (3-5 word) description of the task." },
        prompt: { type: "string", description: "The task for the subagent, complete in itself." },
        subagent_type: {
          type: "string",
          enum: allowed.map((a) => a.name),
          description: "Which subagent to start.",
        },
      },
      required: ["description", "prompt", "subagent_type"],
      additionalProperties: false,
    },
    ...(BUILTIN_PERMISSION_SPECS.get("Task") && { permission: BUILTIN_PERMISSION_SPECS.get("Task") }),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    ownsSchema: true,
    spawnsRuns: true,
    execute: (input, ctx) => runSafely("Task", () => runSubagent(parent, input, ctx)),
  };
}

async function runSubagent(
  parent: ParentRun,
  input: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
): Promise<ToolResult> {
  const { core, spec, state } = parent;
  const name = String(input.subagent_type);
  const sub = core.agents.get(name);
  if (!sub)
    return fail(
      `There is no subagent named '${name}'. Available: ${[...core.agents.keys()].join(", ") || "none"}.`,
    );
  const list = intersect(state.list, core.listOf(sub));
  const refused = refusalSentence(state.list, list, core.listOf(sub), name);
  if (refused) return fail(refused);
  const model = sub.model === undefined || sub.model === "inherit" ? spec.model : resolveModel(sub.model);
  const result = await startRun(core, {
    agent: sub.name,
    system: sub.body,
    model,
    list,
    depth: spec.depth + 1,
    parentRunId: parent.runId,
    messages: [{ role: "user", content: String(input.prompt) }],
    maxIterations: sub.maxIterations ?? core.maxIterations,
    hooks: mergeHooks(spec.hooks, sub.hooks),
    signal: ctx.signal,
    emit: spec.emit,
    sessionId: spec.sessionId,
  });
  return childResult(parent, sub.name, result);
}

/** Why a child run is refused: nothing survives caller ∩ callee. Names what each side allowed. */
function refusalSentence(
  caller: PermissionList,
  effective: PermissionList,
  callee: PermissionList,
  name: string,
): string | undefined {
  if (!allowsNothing(effective)) return undefined;
  return `${name} was not started: no tool survives the intersection of the allow-lists. The caller allows ${ruleTexts(caller).join(", ")}; ${name} allows ${ruleTexts(callee).join(", ")}.`;
}

function childResult(
  parent: ParentRun,
  name: string,
  result: Awaited<ReturnType<typeof startRun>>,
): ToolResult {
  parent.state.meter.usage = addUsage(parent.state.meter.usage, result.usage);
  parent.state.meter.costUsd += result.costUsd;
  if (result.outcome === "done")
    return ok(result.text === "" ? `${name} finished without a text answer.` : result.text);
  const why = result.message ?? result.outcome;
  return fail(
    `${name} did not finish (${result.outcome}: ${why}).${result.text ? `\nIts last text:\n${result.text}` : ""}`,
  );
}

/**
 * The Skill tool of one run: `{ skill, args? }`. An inline skill (the default) returns its rendered
 * body and narrows the run's effective list to (current ∩ skill) for the rest of the run; a fork
 * skill runs as a child, bounded by the same intersection (and by its `agent:`, when it names one).
 */
export function createSkillTool(parent: ParentRun): Tool | undefined {
  const { core, spec } = parent;
  const skills = modelSkills(core, spec.list);
  if (skills.length === 0) return undefined;
  return {
    name: "Skill",
    description:
      "Loads a skill from the catalog in your instructions: its instructions come back as the result (or, for a skill that runs on its own, its answer). Pass arguments in args.",
    inputSchema: {
      type: "object",
      properties: {
        skill: { type: "string", description: "The skill's name, from the catalog." },
        args: { type: "string", description: "Arguments for the skill, as a user would type them." },
      },
      required: ["skill"],
      additionalProperties: false,
    },
    ...(BUILTIN_PERMISSION_SPECS.get("Skill") && { permission: BUILTIN_PERMISSION_SPECS.get("Skill") }),
    concurrency: "sequential",
    interrupt: "cooperative",
    ownsSchema: true,
    spawnsRuns: true,
    execute: (input, ctx) => runSafely("Skill", () => invokeSkillByModel(parent, input, ctx)),
  };
}

async function invokeSkillByModel(
  parent: ParentRun,
  input: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
): Promise<ToolResult> {
  const { core, spec, state } = parent;
  const name = String(input.skill);
  const skill = core.skills.get(name);
  if (!skill)
    return fail(
      `There is no skill named '${name}'. Available: ${[...core.skills.keys()].join(", ") || "none"}.`,
    );
  if (skill.disableModelInvocation)
    return fail(`The skill '${name}' can only be invoked by a user (/${name}).`);
  const own = core.listOf(skill);
  const effective = intersect(state.list, own);
  const refused = refusalSentence(state.list, effective, own, `the skill '${name}'`);
  if (refused) return fail(refused);
  const args = typeof input.args === "string" ? input.args : "";
  const expanded = await expandBody(skill.body, {
    label: `skill ${name}`,
    args,
    list: effective,
    registry: core.baseRegistry,
    toolCtx: ctx,
    skillDir: skill.dir,
    hooks: mergeHooks(spec.hooks, skill.hooks),
    sessionId: spec.sessionId,
  });
  if (!expanded.ok) return fail(expanded.message);
  if (skill.context === "fork") {
    const agent = skill.agent ? core.agents.get(skill.agent) : undefined;
    if (skill.agent && !agent)
      return fail(`The skill '${name}' names the subagent '${skill.agent}', which is not defined.`);
    const list = agent ? intersect(effective, core.listOf(agent)) : effective;
    const forkRefused = agent
      ? refusalSentence(effective, list, core.listOf(agent), `the skill '${name}' (agent ${agent.name})`)
      : undefined;
    if (forkRefused) return fail(forkRefused);
    const model = skill.model && skill.model !== "inherit" ? resolveModel(skill.model) : spec.model;
    const result = await startRun(core, {
      agent: `skill:${name}`,
      system: agent?.body ?? "",
      model,
      list,
      depth: spec.depth + 1,
      parentRunId: parent.runId,
      messages: [{ role: "user", content: expanded.text }],
      maxIterations: agent?.maxIterations ?? core.maxIterations,
      hooks: mergeHooks(spec.hooks, agent?.hooks, skill.hooks),
      signal: ctx.signal,
      emit: spec.emit,
      sessionId: spec.sessionId,
    });
    return childResult(parent, `the skill '${name}'`, result);
  }
  state.list = effective;
  return ok(`Skill '${name}' (folder: ${shownPath(core.cwd, skill.dir)}/)\n\n${expanded.text}`);
}
