import type { SkillDefinition, SubagentDefinition } from "../definitions/types.js";
import type { BackgroundRuns } from "../loop/background-runs.js";
import type { RunResult } from "../loop/events.js";
import { addUsage } from "../model/models.js";
import { fail, ok, runSafely } from "../tools/define-tool.js";
import type { Tool, ToolResult } from "../tools/types.js";
import { childCaller } from "./callers.js";
import type { Core } from "./core.js";
import { shownPath } from "./expand-body.js";
import { byName, type HopCore } from "./hop-core.js";
import { prepareRun, resolveInvocable } from "./prepare-run.js";
import { sandboxAfter } from "./run-sandbox-of.js";
import type { Caller, ChildCall, ParentRun, Prepared } from "./run-types.js";
import { SKILL_PERMISSION, TASK_PERMISSION } from "./tool-catalog.js";
import { openWorktree } from "./worktree.js";

/**
 * The Task tool of one run (alias Agent): spawns a subagent as a child run whose effective list is
 * the parent's ∩ the subagent's (deny lists inherited). Offered only below the depth limit and when
 * some subagent is allowed; its `subagent_type` is an enum of exactly those.
 */
export function createTaskTool(
  core: HopCore,
  parent: ParentRun,
  allowed: readonly SubagentDefinition[],
): Tool | undefined {
  if (allowed.length === 0) return undefined;
  const listing = allowed.map((a) => `- ${a.name}: ${a.description}`).join("\n");
  return {
    name: "Task",
    description: `Starts a subagent on a task and returns its final answer. The subagent works on its own, with its own tools (never more than yours), and sees only the prompt you give it, so include everything it needs.\n\nSubagents:\n${listing}`,
    // The model is shown the names it may start; a name that is not one is answered by prepareRun
    // ("no subagent named X; loaded: …"), which an enum error in the gate would not say as well.
    inputSchema: taskSchema(),
    apiSchema: taskSchema(allowed.map((a) => a.name)),
    permission: TASK_PERMISSION,
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    ownsSchema: true,
    spawnsRuns: true,
    execute: (input, ctx) =>
      runSafely("Task", async () => {
        const request = {
          kind: "agent" as const,
          name: String(input.subagent_type),
          content: String(input.prompt),
        };
        const prepared = prepareRun(core, callerOf(parent), request);
        if (prepared.kind === "ready" && prepared.spec.background && parent.background)
          return inBackground(parent.background, request.name, (signal) =>
            runChild(core, parent, prepared, { signal, callId: ctx.callId }),
          );
        return runChild(core, parent, prepared, ctx);
      }),
  };
}

/**
 * A background subagent: the Task call returns at once with its task id; the run goes on, and the
 * subagent's answer (or why it failed) comes before the run's next request once it ends.
 */
function inBackground(
  tasks: BackgroundRuns,
  name: string,
  run: (signal: AbortSignal) => Promise<ToolResult>,
): ToolResult {
  const id = tasks.start(name, async (signal) => {
    const r = await run(signal);
    const said = typeof r.content === "string" ? r.content : JSON.stringify(r.content);
    return r.isError ? `It failed: ${said}` : said;
  });
  return ok(
    `${name} is running in the background as ${id}. Go on with other work: its answer comes to you in a task notification when it ends (this run waits for it before finishing).`,
  );
}

function taskSchema(names?: readonly string[]): Tool["inputSchema"] {
  return {
    type: "object",
    properties: {
      description: { type: "string", description: "A short (3-5 word) description of the task." },
      prompt: { type: "string", description: "The task for the subagent, complete in itself." },
      subagent_type: {
        type: "string",
        ...(names && { enum: [...names] }),
        description: "Which subagent to start.",
      },
    },
    required: ["description", "prompt", "subagent_type"],
    additionalProperties: false,
  };
}

/**
 * The Skill tool of one run: `{ skill, args? }`. An inline skill (the default) returns its body made
 * ready and narrows the run's effective list to (current ∩ skill) for the rest of the run, its hooks
 * active from then on; a fork skill runs as a child, bounded by the same intersection (and by its
 * `agent:`, when it names one).
 */
export function createSkillTool(
  core: Core,
  parent: ParentRun,
  skills: readonly SkillDefinition[],
): Tool | undefined {
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
    permission: SKILL_PERMISSION,
    concurrency: "sequential",
    interrupt: "cooperative",
    ownsSchema: true,
    spawnsRuns: true,
    execute: (input, ctx) =>
      runSafely("Skill", () =>
        invokeSkill(core, parent, String(input.skill), typeof input.args === "string" ? input.args : "", ctx),
      ),
  };
}

async function invokeSkill(
  core: Core,
  parent: ParentRun,
  name: string,
  args: string,
  call: ChildCall,
): Promise<ToolResult> {
  const { state } = parent;
  const resolved = resolveInvocable(core, callerOf(parent), name, args, "model");
  if (resolved.kind !== "inline") return runChild(core, parent, resolved, call);
  // A skill that turns the sandbox on does so for the rest of the run (never off).
  const sandbox = await sandboxAfter(core, state, resolved.sandbox);
  if (!sandbox.ok) return fail(`The skill '${name}' was not loaded: ${sentence(sandbox.message)}`);
  // Inline: the body is made ready under the narrowed list and hooks, through the run's own calls.
  const approved = resolved.approved && { approved: resolved.approved };
  const narrowed = { ...state, list: resolved.list, hooks: resolved.hooks, ...sandbox.state, ...approved };
  const expanded = await parent.expand(resolved.prompt, narrowed, call.signal);
  if (!expanded.ok) return fail(expanded.message);
  state.list = resolved.list;
  state.hooks = resolved.hooks;
  if (resolved.approved) state.approved = resolved.approved;
  if (sandbox.state) state.sandbox = sandbox.state.sandbox;
  const skill = byName(core.skills, name);
  return ok(`Skill '${name}' (folder: ${shownPath(core.cwd, skill?.dir ?? core.cwd)}/)\n\n${expanded.text}`);
}

/** What a run started by one of this run's tools inherits. */
function callerOf(parent: ParentRun): Caller {
  const { state } = parent;
  const now = {
    list: state.list,
    hooks: state.hooks,
    approved: state.approved,
    sandbox: state.sandbox?.setting,
  };
  return childCaller(parent.spec, now, parent.runId);
}

/**
 * Runs a prepared child and answers with its final text; what it spent is added to the parent's.
 * A child with `isolation: worktree` runs in a worktree of its own, kept (and named) when it changed.
 */
async function runChild(
  core: HopCore,
  parent: ParentRun,
  prepared: Prepared,
  call: ChildCall,
): Promise<ToolResult> {
  if (prepared.kind !== "ready") return fail(sentence(prepared.message));
  if (!prepared.spec.isolation)
    return childResult(parent, prepared.spec.agent, await parent.startChild(prepared.spec, call));
  const opened = await openWorktree(prepared.spec, {
    cwd: parent.cwd ?? core.cwd,
    specs: core.catalog.specs,
    hooksCwd: core.cwd,
    ...(parent.spec.workdir && { parent: parent.spec.workdir }),
  });
  if (!opened.ok) return fail(sentence(opened.message));
  const result = await parent.startChild(opened.tree.spec, call);
  return childResult(parent, prepared.spec.agent, result, await opened.tree.close());
}

function childResult(parent: ParentRun, name: string, result: RunResult, kept?: string): ToolResult {
  const meter = parent.state.meter;
  meter.usage = addUsage(meter.usage, result.usage);
  meter.costUsd += result.costUsd;
  if (result.costUnknown) meter.costUnknown = true;
  const tail = kept ? `\n\n${kept}` : "";
  if (result.outcome === "done")
    return ok(`${result.text === "" ? `${name} finished without a text answer.` : result.text}${tail}`);
  const why = result.message ?? result.outcome;
  return fail(
    `${name} did not finish (${result.outcome}: ${why}).${result.text ? `\nIts last text:\n${result.text}` : ""}${tail}`,
  );
}

/** A message as the model reads it: ending with a full stop. */
function sentence(message: string): string {
  return /[.?!]$/.test(message) ? message : `${message}.`;
}
