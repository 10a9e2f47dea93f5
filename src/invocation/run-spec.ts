import type { Effort, Thinking } from "../definitions/effort-thinking.js";
import type { OutputSchema } from "../definitions/output-schema.js";
import type { Definition } from "../definitions/types.js";
import type { Hooks } from "../loop/hooks.js";
import { resolveModel } from "../model/models.js";
import type { PermissionMode } from "../permissions/approval.js";
import { narrowerMode } from "../permissions/mode-order.js";
import type { PermissionList } from "../permissions/types.js";
import type { SandboxSetting } from "../sandbox/sandbox-setting.js";
import type { HopCore } from "./hop-core.js";
import type { BodyPrompt, Caller, Prompt, RunSpec } from "./run-types.js";

/** What a run is, beside what it takes from its caller's place (its depth, its parent's id). */
export interface RunOwn {
  readonly agent: string;
  readonly system: string;
  /** Chosen by `modelFor`. */
  readonly model: string;
  /** Chosen by `maxIterationsFor`, or the caller's when the run continues as it. */
  readonly maxIterations: number;
  readonly list: PermissionList;
  readonly hooks: Hooks;
  readonly prompt: Prompt;
  readonly approved: readonly PermissionList[] | undefined;
  readonly sandbox: SandboxSetting | undefined;
  readonly mcpScope: readonly Definition[] | undefined;
  readonly outputSchema?: OutputSchema;
  readonly maxBudgetUsd?: number;
  readonly fallbackModels?: readonly string[];
  readonly effort?: Effort;
  readonly thinking?: Thinking;
  readonly isolation?: "worktree";
  readonly background?: true;
  /** Skill bodies made ready in the run and put in its system prompt (a subagent's `skills:`). */
  readonly preload?: readonly BodyPrompt[];
  /** Its own definition's `permissionMode`: bounded by its caller's, never wider. */
  readonly permissionMode?: PermissionMode;
}

/** The one way a run's spec is made: what it is, at its caller's depth, below its caller's run. */
export function runSpec(caller: Caller, own: RunOwn): RunSpec {
  const { outputSchema, maxBudgetUsd, fallbackModels, effort, thinking, permissionMode: mode, ...rest } = own;
  // A run approves in its caller's mode or its own, whichever is narrower: no hop widens it.
  const permissionMode = narrowerMode(caller.permissionMode, mode);
  return {
    ...rest,
    depth: caller.depth,
    parentRunId: caller.parentRunId,
    ...(outputSchema && { outputSchema }),
    ...(maxBudgetUsd !== undefined && { maxBudgetUsd }),
    ...(fallbackModels && { fallbackModels }),
    ...(effort && { effort }),
    ...(thinking !== undefined && { thinking }),
    ...(permissionMode && { permissionMode }),
    ...(caller.workdir && { workdir: caller.workdir }),
  };
}

/**
 * The model a run uses: the first model its definitions name, in the order given (a forked skill's
 * own, then the subagent's it runs as), `inherit` and none passed over; else its caller's.
 */
export function modelFor(caller: Pick<Caller, "model">, ...own: readonly (string | undefined)[]): string {
  const named = own.find((m) => m && m !== "inherit");
  return named ? resolveModel(named) : caller.model;
}

/** A run of its own stops after its definition's turn limit, else the runner's. */
export function maxIterationsFor(core: HopCore, own: number | undefined): number {
  return own ?? core.settings.maxIterations;
}

/** The run a caller continues as: its agent, list, hooks and everything else it has now. */
export function continued(caller: Caller): Omit<RunOwn, "prompt"> {
  return {
    ...caller.self,
    model: caller.model,
    list: caller.list,
    hooks: caller.hooks,
    approved: caller.approved,
    sandbox: caller.sandbox,
    mcpScope: caller.mcpScope,
  };
}

/** The lists that pre-approve a run's calls, with an invocable's own (when it wrote an allow-list). */
export function approvedWith(
  before: readonly PermissionList[] | undefined,
  own: PermissionList,
): readonly PermissionList[] | undefined {
  const lists = [...(before ?? []), ...(own.rules !== null ? [own] : [])];
  return lists.length > 0 ? lists : undefined;
}
