import type { SubagentDefinition } from "../definitions/types.js";
import { mergeHooks } from "../loop/hooks.js";
import { resolveModel } from "../model/models.js";
import { allowsNothing, decide, denialText, intersect, ruleTexts } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { joinSandbox } from "../sandbox/sandbox-setting.js";
import { findInvocable, type Invocable, loadedNames } from "./find-invocable.js";
import { byName, type HopCore } from "./hop-core.js";
import { withInitialPrompt } from "./parse-line.js";
import { preloadSkills } from "./preload-skills.js";
import { approvedWith, continued, maxIterationsFor, modelFor, runSpec } from "./run-spec.js";
import type {
  BodyPrompt,
  Caller,
  Content,
  NotStarted,
  Prepared,
  Prompt,
  Resolved,
  RunRequest,
  RunSpec,
} from "./run-types.js";

/**
 * How anything becomes a run: a line a user typed (a prompt, or `/name args`), `--agent NAME`, or a
 * model's Task or Skill call. One path for all of them, so a subagent, a skill and a command are
 * prepared the same way wherever they start: the callee's list is intersected with its caller's,
 * its hooks join the caller's, its model and turn limit come from its own definition first.
 */

/** The run a request starts, or why it cannot start. Contract: never throws. */
export function prepareRun(core: HopCore, caller: Caller, request: RunRequest): Prepared {
  const deep = tooDeep(core, caller);
  if (deep) return deep;
  if (request.kind === "prompt")
    return ready(runSpec(caller, { ...continued(caller), prompt: contentPrompt(request.content) }));
  if (request.kind === "agent") {
    const sub = byName(core.agents, request.name);
    if (!sub)
      return failed(
        `no subagent named '${request.name}'${loadedNames(request.name, [...core.agents.keys()])}`,
      );
    return agentRun(core, caller, {
      sub,
      ceiling: caller.list,
      // Its initialPrompt comes first, before the task it is given (a Task's prompt, `--agent`'s).
      prompt: contentPrompt(withInitialPrompt(sub.initialPrompt, request.content)),
      agent: sub.name,
      model: modelFor(caller, sub.model),
    });
  }
  const resolved = resolveInvocable(core, caller, request.name, request.args, request.by);
  if (resolved.kind !== "inline") return resolved;
  // A user's inline command or skill runs in a run of their own, as the agent they run as.
  const { list, hooks, model, prompt, sandbox, approved } = resolved;
  const outputSchema = resolved.outputSchema ?? caller.self.outputSchema;
  const effort = resolved.effort ?? caller.self.effort;
  const thinking = resolved.thinking ?? caller.self.thinking;
  return ready(
    runSpec(caller, {
      ...continued(caller),
      ...{ list, hooks, model, prompt, sandbox, approved, outputSchema, effort, thinking },
    }),
  );
}

/**
 * A command or skill by name: inline (it narrows the caller's run, and its body becomes the next
 * prompt) or forked (a run of its own, as its `agent:` when it names one).
 */
export function resolveInvocable(
  core: HopCore,
  caller: Caller,
  name: string,
  args: string,
  by: "user" | "model",
): Resolved {
  const target = findInvocable(core, name, by);
  if (typeof target === "string") return failed(target);
  const deep = target.context === "fork" ? tooDeep(core, caller) : undefined;
  if (deep) return deep;
  const label = by === "user" ? `/${name}` : `the skill '${name}'`;
  const own = core.listOf(target);
  const list = intersect(caller.list, own);
  const empty = refusal(caller.list, list, own, label);
  if (empty) return empty;
  // Its `!` lines and `@` files: the caller's list (with the invocable's own deny rules), its own
  // allow-list a pre-approval there.
  const prompt = bodyPrompt(target, args, label, {
    list: intersect(caller.list, { rules: null, deny: own.deny }),
    approved: approvedWith(caller.approved, own),
  });
  const hooks = mergeHooks(caller.hooks, target.surface === "skill" ? target.hooks : undefined);
  // A command or skill file may turn the sandbox on for what it runs, never off.
  const sandbox = joinSandbox(caller.sandbox, target.sandbox);
  if (target.context !== "fork") {
    const approved = approvedWith(caller.approved, own);
    return {
      kind: "inline",
      list,
      hooks,
      model: modelFor(caller, target.model),
      prompt,
      sandbox,
      approved,
      ...(target.outputSchema && { outputSchema: target.outputSchema }),
      ...reasoningOf(target),
    };
  }
  const agent = `${target.surface}:${name}`;
  if (target.agent)
    return forkAsAgent(core, { ...caller, hooks, sandbox }, target.agent, {
      list,
      prompt,
      label,
      agent,
      model: target.model,
      outputSchema: target.outputSchema,
      ...reasoningOf(target),
    });
  return ready(
    runSpec(caller, {
      agent,
      system: "",
      model: modelFor(caller, target.model),
      maxIterations: maxIterationsFor(core, undefined),
      list,
      hooks,
      prompt,
      sandbox,
      // A fork is a run of its own: only its own list pre-approves its calls.
      approved: approvedWith(undefined, own),
      mcpScope: caller.mcpScope,
      outputSchema: target.outputSchema,
      ...reasoningOf(target),
    }),
  );
}

/** A definition's own `effort` and `thinking`, the keys it wrote. */
const reasoningOf = (d: Pick<Invocable, "effort" | "thinking">) => ({
  ...(d.effort && { effort: d.effort }),
  ...(d.thinking !== undefined && { thinking: d.thinking }),
});

function bodyPrompt(
  target: Invocable,
  args: string,
  label: string,
  caller: NonNullable<BodyPrompt["caller"]>,
): BodyPrompt {
  const prompt: BodyPrompt = { kind: "body", body: target.body, args, label, caller };
  return target.surface === "skill" ? { ...prompt, skillDir: target.dir } : prompt;
}

const contentPrompt = (content: Content): Prompt => ({ kind: "content", content });

/**
 * A fork with `agent:` starts that subagent under what the invocation left of the caller's list:
 * the caller must be allowed to start it (Task), as for any subagent it starts. Its model is the
 * fork's own, else the subagent's, else the caller's.
 */
function forkAsAgent(
  core: HopCore,
  caller: Caller,
  name: string,
  fork: {
    readonly list: PermissionList;
    readonly prompt: Prompt;
    readonly label: string;
    readonly agent: string;
    readonly model: string | undefined;
    readonly outputSchema: RunSpec["outputSchema"];
    readonly effort?: RunSpec["effort"];
    readonly thinking?: RunSpec["thinking"];
  },
): Prepared {
  const sub = byName(core.agents, name);
  if (!sub)
    return failed(
      `${fork.label} names the subagent '${name}', which is not defined${loadedNames(name, [...core.agents.keys()])}`,
    );
  const d = decide(
    caller.list,
    { tool: "Task", input: { subagent_type: sub.name } },
    { specs: core.catalog.specs, cwd: core.cwd },
  );
  if (d.kind === "denied")
    return failed(
      `${fork.label} runs as the subagent '${sub.name}', which this run may not start: ${denialText(d)}`,
    );
  return agentRun(core, caller, {
    sub,
    ceiling: fork.list,
    prompt: fork.prompt,
    agent: fork.agent,
    model: modelFor(caller, fork.model, sub.model),
    outputSchema: fork.outputSchema ?? sub.outputSchema,
    // The fork's own, else the subagent's it runs as.
    effort: fork.effort ?? sub.effort,
    thinking: fork.thinking ?? sub.thinking,
  });
}

/** A subagent's run under `ceiling` (the caller's list, or what an invocation left of it). */
function agentRun(
  core: HopCore,
  caller: Caller,
  run: {
    readonly sub: SubagentDefinition;
    readonly ceiling: PermissionList;
    readonly prompt: Prompt;
    readonly agent: string;
    readonly model: string;
    readonly outputSchema?: RunSpec["outputSchema"];
    readonly effort?: RunSpec["effort"];
    readonly thinking?: RunSpec["thinking"];
  },
): Prepared {
  const { sub, ceiling } = run;
  const own = core.listOf(sub);
  const list = intersect(ceiling, own);
  const empty = refusal(ceiling, list, own, sub.name);
  if (empty) return empty;
  // Its `skills:` are loaded into it from the start, each as an inline Skill call would be.
  const loaded = preloadSkills(core, sub, {
    list,
    hooks: mergeHooks(caller.hooks, sub.hooks),
    sandbox: joinSandbox(caller.sandbox, sub.sandbox),
  });
  if (typeof loaded === "string") return { kind: "refused", message: loaded };
  const left = refusal(ceiling, loaded.list, own, sub.name);
  if (left) return left;
  return ready(
    runSpec(caller, {
      agent: run.agent,
      system: sub.body,
      model: run.model,
      maxIterations: maxIterationsFor(core, sub.maxIterations),
      list: loaded.list,
      hooks: loaded.hooks,
      prompt: run.prompt,
      sandbox: loaded.sandbox,
      ...(loaded.prompts.length > 0 && { preload: loaded.prompts }),
      ...(sub.isolation && { isolation: sub.isolation }),
      ...(sub.background && { background: true as const }),
      // A subagent asks for what its caller's commands pre-approved: their lists are not its own.
      approved: undefined,
      mcpScope: [...(caller.mcpScope ?? []), sub],
      outputSchema: run.outputSchema ?? sub.outputSchema,
      maxBudgetUsd: sub.maxBudgetUsd,
      fallbackModels: sub.fallbackModel?.map((m) => resolveModel(m)),
      effort: run.effort ?? sub.effort,
      thinking: run.thinking ?? sub.thinking,
      ...(sub.permissionMode && { permissionMode: sub.permissionMode }),
    }),
  );
}

/** Why a run is refused: nothing survives caller ∩ callee. Names what each side allowed. */
function refusal(
  caller: PermissionList,
  effective: PermissionList,
  callee: PermissionList,
  name: string,
): NotStarted | undefined {
  if (!allowsNothing(effective)) return undefined;
  return {
    kind: "refused",
    message: `${name} was not started: no tool survives the intersection of the allow-lists. The caller allows ${ruleTexts(caller).join(", ") || "nothing"}; ${name} allows ${ruleTexts(callee).join(", ") || "nothing"}.`,
  };
}

/** Every nested run counts, a forked skill's as a subagent's: none deeper than maxDepth. */
function tooDeep(core: HopCore, caller: Caller): NotStarted | undefined {
  if (caller.depth <= core.settings.maxDepth) return undefined;
  return failed(`runs nest at most ${core.settings.maxDepth} deep (maxDepth), so this one was not started`);
}

const ready = (spec: RunSpec): Prepared => ({ kind: "ready", spec });
const failed = (message: string): NotStarted => ({ kind: "failed", message });
