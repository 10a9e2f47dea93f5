import type {
  CommandDefinition,
  Definition,
  SkillDefinition,
  SubagentDefinition,
} from "../definitions/types.js";
import { type Hooks, mergeHooks } from "../loop/hooks.js";
import type { MessageParam } from "../model/messages.js";
import { resolveModel } from "../model/models.js";
import { allowsNothing, decide, denialText, intersect, ruleTexts } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { joinSandbox, type SandboxSetting } from "../sandbox/sandbox-setting.js";
import { didYouMean } from "../shared/did-you-mean.js";
import type { HopCore } from "./hop-core.js";
import type { Memory } from "./memory.js";

/**
 * How anything becomes a run: a line a user typed (a prompt, or `/name args`), `--agent NAME`, or a
 * model's Task or Skill call. One path for all of them, so a subagent, a skill and a command are
 * prepared the same way wherever they start: the callee's list is intersected with its caller's,
 * its hooks join the caller's, its model and turn limit come from its own definition first.
 */

export type Content = MessageParam["content"];

export type RunRequest =
  /** A prompt for the agent the caller runs as (the main agent, for a user). */
  | { readonly kind: "prompt"; readonly content: Content }
  /** A subagent: `--agent NAME`, or the Task tool. */
  | { readonly kind: "agent"; readonly name: string; readonly content: Content }
  /** A command or skill by name: `/name args`, or the Skill tool. */
  | {
      readonly kind: "invocable";
      readonly name: string;
      readonly args: string;
      readonly by: "user" | "model";
    };

const SLASH = /^\/([A-Za-z0-9_][A-Za-z0-9_:.-]*)(?:\s+([\s\S]*))?$/;

/** What a typed line asks for: `/name args` is a command or skill; anything else is a prompt. */
export function parseLine(input: Content, agent?: string): RunRequest {
  if (agent !== undefined) return { kind: "agent", name: agent, content: input };
  const slash = typeof input === "string" ? SLASH.exec(input.trim()) : null;
  if (!slash) return { kind: "prompt", content: input };
  return { kind: "invocable", name: slash[1] as string, args: (slash[2] ?? "").trim(), by: "user" };
}

/** Who starts a run: what the new run inherits and may never exceed. */
export interface Caller {
  /** The caller's effective list: the ceiling of the new run. */
  readonly list: PermissionList;
  /** The caller's model, for `model: inherit` (or none). */
  readonly model: string;
  readonly hooks: Hooks;
  /** The depth of the run this request starts (0 for a user's). */
  readonly depth: number;
  readonly parentRunId?: string;
  /** The subagents whose inline MCP servers the caller may reach (its own and its ancestors'). */
  readonly mcpScope?: readonly Definition[];
  /** Lists whose calls need no approval in the caller's run: the commands and skills it runs as. */
  readonly approved?: readonly PermissionList[];
  /** The agent the caller runs as: a prompt or an inline invocation continues as it. */
  readonly self: { readonly agent: string; readonly system: string; readonly maxIterations: number };
  /** The caller's sandbox; whatever it starts runs sandboxed too. */
  readonly sandbox?: SandboxSetting;
}

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
    },
    // The runner's sandbox (option > agent.md), inherited by everything the user starts.
    ...(core.settings.sandbox && { sandbox: core.settings.sandbox }),
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
    ...(runId && { parentRunId: runId }),
    ...(spec.mcpScope && { mcpScope: spec.mcpScope }),
    self: { agent: spec.agent, system: spec.system, maxIterations: spec.maxIterations },
    ...(now.sandbox && { sandbox: now.sandbox }),
    ...(now.approved && { approved: now.approved }),
  };
}

/** A command or skill body, made ready (arguments, `!cmd`, `@file`) inside the run it starts. */
export interface BodyPrompt {
  readonly kind: "body";
  readonly body: string;
  readonly args: string;
  /** How it was named (`/git:commit`, `the skill 'pdf'`), for messages. */
  readonly label: string;
  /** A skill's folder: `${SKILL_DIR}` points here. */
  readonly skillDir?: string;
}

export type Prompt = { readonly kind: "content"; readonly content: Content } | BodyPrompt;

/** One run: the main agent's, a subagent's, a command's, a forked skill's. */
export interface RunSpec {
  readonly agent: string;
  readonly system: string;
  readonly model: string;
  /** The effective list: every hop's list intersected. */
  readonly list: PermissionList;
  readonly depth: number;
  readonly parentRunId?: string;
  readonly maxIterations: number;
  readonly hooks: Hooks;
  readonly prompt: Prompt;
  /**
   * Lists whose calls need no user's approval in this run: the allow-lists of the commands and
   * skills it runs (as Claude Code's `allowed-tools` pre-approve), always within `list`.
   */
  readonly approved?: readonly PermissionList[];
  /**
   * The subagents whose inline MCP servers this run may reach: a subagent's run adds its own to its
   * caller's, so they live for its runs and its children's (each still bounded by its list).
   */
  readonly mcpScope?: readonly Definition[];
  /** Its commands run inside the OS sandbox: its caller's, joined with its own file's. */
  readonly sandbox?: SandboxSetting;
}

export type Prepared =
  | { readonly ok: true; readonly spec: RunSpec }
  /** `refused`: nothing survives the intersection of the lists. */
  | { readonly ok: false; readonly message: string; readonly refused?: true };

/** An inline invocation narrows the run it is made in, instead of starting one. */
export interface Inline {
  readonly list: PermissionList;
  readonly hooks: Hooks;
  readonly approved?: readonly PermissionList[];
  readonly model: string;
  readonly prompt: BodyPrompt;
  readonly sandbox?: SandboxSetting;
}

export type Invocable = SkillDefinition | CommandDefinition;

/** The run a request starts, or why it cannot start. Contract: never throws. */
export function prepareRun(core: HopCore, caller: Caller, request: RunRequest): Prepared {
  const deep = tooDeep(core, caller);
  if (deep) return deep;
  if (request.kind === "prompt") {
    const { self } = caller;
    return ok({
      ...self,
      model: caller.model,
      list: caller.list,
      hooks: caller.hooks,
      depth: caller.depth,
      ...parent(caller),
      ...(caller.approved && { approved: caller.approved }),
      prompt: { kind: "content", content: request.content },
    });
  }
  if (request.kind === "agent") {
    const sub = core.agents.get(request.name);
    if (!sub)
      return {
        ok: false,
        message: `no subagent named '${request.name}'${loaded(request.name, [...core.agents.keys()])}`,
      };
    return agentRun(core, caller, sub, caller.list, { kind: "content", content: request.content }, sub.name);
  }
  const resolved = resolveInvocable(core, caller, request.name, request.args, request.by);
  if (!resolved.ok || resolved.kind === "fork") return resolved;
  const { self } = caller;
  return ok({
    ...self,
    model: resolved.model,
    list: resolved.list,
    hooks: resolved.hooks,
    depth: caller.depth,
    ...parent(caller),
    ...(resolved.sandbox && { sandbox: resolved.sandbox }),
    ...(resolved.approved && { approved: resolved.approved }),
    prompt: resolved.prompt,
  });
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
):
  | ({ ok: true; kind: "inline" } & Inline)
  | { ok: true; kind: "fork"; spec: RunSpec }
  | (Prepared & { ok: false }) {
  const target = findInvocable(core, name, by);
  if (typeof target === "string") return { ok: false, message: target };
  const deep = target.context === "fork" ? tooDeep(core, caller) : undefined;
  if (deep) return deep;
  const label = by === "user" ? `/${name}` : `the skill '${name}'`;
  const list = intersect(caller.list, core.listOf(target));
  const empty = refusal(caller.list, list, core.listOf(target), label);
  if (empty) return empty;
  const own = target.surface === "skill" ? target.hooks : undefined;
  const prompt: BodyPrompt = {
    kind: "body",
    body: target.body,
    args,
    label,
    ...(target.surface === "skill" && { skillDir: target.dir }),
  };
  const ownModel = target.model && target.model !== "inherit" ? resolveModel(target.model) : undefined;
  const model = ownModel ?? caller.model;
  // A command or skill file may turn the sandbox on for what it runs, never off.
  const sandbox = joinSandbox(caller.sandbox, target.sandbox);
  const sandboxed = sandbox && { sandbox };
  const approved = approvedWith(caller.approved, core.listOf(target));
  if (target.context !== "fork")
    return {
      ok: true,
      kind: "inline",
      list,
      hooks: mergeHooks(caller.hooks, own),
      model,
      prompt,
      ...sandboxed,
      ...approved,
    };
  if (!target.agent) {
    const spec = {
      agent: `${target.surface}:${name}`,
      system: "",
      model,
      list,
      depth: caller.depth,
      ...parent(caller),
      maxIterations: core.settings.maxIterations,
      hooks: mergeHooks(caller.hooks, own),
      prompt,
      ...sandboxed,
      ...approvedWith(undefined, core.listOf(target)),
    };
    return { ok: true, kind: "fork", spec };
  }
  const forked = forkAsAgent(
    core,
    { ...caller, hooks: mergeHooks(caller.hooks, own), ...sandboxed },
    target.agent,
    { list, prompt, label, run: `${target.surface}:${name}`, ownModel },
  );
  return forked.ok ? { ok: true, kind: "fork", spec: forked.spec } : forked;
}

/**
 * A fork with `agent:` starts that subagent under what the invocation left of the caller's list:
 * the caller must be allowed to start it (Task), as for any subagent it starts.
 */
function forkAsAgent(
  core: HopCore,
  caller: Caller,
  name: string,
  fork: {
    readonly list: PermissionList;
    readonly prompt: Prompt;
    readonly label: string;
    readonly run: string;
    readonly ownModel: string | undefined;
  },
): Prepared {
  const agent = core.agents.get(name);
  if (!agent)
    return {
      ok: false,
      message: `${fork.label} names the subagent '${name}', which is not defined${loaded(name, [...core.agents.keys()])}`,
    };
  const d = decide(
    caller.list,
    { tool: "Task", input: { subagent_type: agent.name } },
    { specs: core.catalog.specs, cwd: core.cwd },
  );
  if (d.kind === "denied")
    return {
      ok: false,
      message: `${fork.label} runs as the subagent '${agent.name}', which this run may not start: ${denialText(d)}`,
    };
  return agentRun(core, caller, agent, fork.list, fork.prompt, fork.run, fork.ownModel);
}

/** A subagent's run under `ceiling` (the caller's list, or what an invocation left of it). */
function agentRun(
  core: HopCore,
  caller: Caller,
  sub: SubagentDefinition,
  ceiling: PermissionList,
  prompt: Prompt,
  label: string,
  model = sub.model === undefined || sub.model === "inherit" ? undefined : resolveModel(sub.model),
): Prepared {
  const own = core.listOf(sub);
  const list = intersect(ceiling, own);
  const empty = refusal(ceiling, list, own, sub.name);
  if (empty) return empty;
  const sandbox = joinSandbox(caller.sandbox, sub.sandbox);
  return ok({
    agent: label,
    system: sub.body,
    model: model ?? caller.model,
    list,
    depth: caller.depth,
    ...parent(caller),
    mcpScope: [...(caller.mcpScope ?? []), sub],
    maxIterations: sub.maxIterations ?? core.settings.maxIterations,
    hooks: mergeHooks(caller.hooks, sub.hooks),
    prompt,
    ...(sandbox && { sandbox }),
  });
}

/** The skill (first) or command a name invokes, or why there is none. */
export function findInvocable(core: HopCore, name: string, by: "user" | "model"): Invocable | string {
  const skill = core.skills.get(name);
  if (by === "model") {
    if (!skill) return `there is no skill named '${name}'${loaded(name, [...core.skills.keys()])}`;
    if (skill.disableModelInvocation) return `the skill '${name}' can only be invoked by a user (/${name})`;
    return skill;
  }
  const command = core.commands.get(name);
  if (skill && skill.userInvocable !== false) return skill;
  if (command && command.userInvocable !== false) return command;
  const known = slashNames(core).map((n) => `/${n}`);
  const near = didYouMean(`/${name}`, known);
  const list = known.length
    ? ` Known: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}.`
    : "";
  return `unknown command or skill /${name}${near ? `; did you mean ${near}?` : "."}${list}`;
}

/** The names a user may type after `/`, sorted. */
export function slashNames(core: HopCore): string[] {
  const names = new Set<string>();
  for (const s of core.skills.values()) if (s.userInvocable !== false) names.add(s.name);
  for (const c of core.commands.values()) if (c.userInvocable !== false) names.add(c.name);
  return [...names].sort();
}

/** Why a run is refused: nothing survives caller ∩ callee. Names what each side allowed. */
function refusal(
  caller: PermissionList,
  effective: PermissionList,
  callee: PermissionList,
  name: string,
): (Prepared & { ok: false }) | undefined {
  if (!allowsNothing(effective)) return undefined;
  return {
    ok: false,
    refused: true,
    message: `${name} was not started: no tool survives the intersection of the allow-lists. The caller allows ${ruleTexts(caller).join(", ") || "nothing"}; ${name} allows ${ruleTexts(callee).join(", ") || "nothing"}.`,
  };
}

function loaded(name: string, names: readonly string[]): string {
  const near = didYouMean(name, names);
  return `${near ? `; did you mean '${near}'?` : ""}; loaded: ${names.length ? names.join(", ") : "none"}`;
}

const ok = (spec: RunSpec): Prepared => ({ ok: true, spec });

/** Every nested run counts, a forked skill's as a subagent's: none deeper than maxDepth. */
function tooDeep(core: HopCore, caller: Caller): (Prepared & { ok: false }) | undefined {
  if (caller.depth <= core.settings.maxDepth) return undefined;
  return {
    ok: false,
    message: `runs nest at most ${core.settings.maxDepth} deep (maxDepth), so this one was not started`,
  };
}

// What every run inherits from its caller: its parent's id, the inline MCP servers it may reach, and
// its sandbox.
/** The lists that pre-approve a run's calls, with an invocable's own (when it wrote an allow-list). */
function approvedWith(
  before: readonly PermissionList[] | undefined,
  own: PermissionList,
): { approved?: readonly PermissionList[] } {
  const lists = [...(before ?? []), ...(own.rules !== null ? [own] : [])];
  return lists.length > 0 ? { approved: lists } : {};
}

const parent = (c: Caller) => ({
  ...(c.parentRunId && { parentRunId: c.parentRunId }),
  ...(c.mcpScope && { mcpScope: c.mcpScope }),
  ...(c.sandbox && { sandbox: c.sandbox }),
});
