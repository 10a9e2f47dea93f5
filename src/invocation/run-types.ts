// The data of invocation: how a run is asked for, who asks, what it is, and what a run hands the
// tools that start runs below it. Types only, so every file of invocation can name them without
// importing the code that makes or starts runs (this file is the leaf of the layer).

import type { Effort, Thinking } from "../definitions/effort-thinking.js";
import type { OutputSchema } from "../definitions/output-schema.js";
import type { Definition } from "../definitions/types.js";
import type { BackgroundRuns } from "../loop/background-runs.js";
import type { Budget } from "../loop/budget.js";
import type { TurnCheckpoint } from "../loop/checkpoints.js";
import type { EventSink, RunResult } from "../loop/events.js";
import type { RunState } from "../loop/execute-call.js";
import type { Fired, Hooks } from "../loop/hooks.js";
import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { PermissionMode } from "../permissions/approval.js";
import type { PermissionList } from "../permissions/types.js";
import type { SandboxSetting } from "../sandbox/sandbox-setting.js";
import type { ReadRecord, ToolContext } from "../tools/types.js";
import type { RunTrace } from "../tracing/tracing.js";

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
  readonly self: {
    readonly agent: string;
    readonly system: string;
    readonly maxIterations: number;
    /** The schema the caller's own answer must match, kept by a run that continues as it. */
    readonly outputSchema?: OutputSchema;
    /** The caller's own effort and thinking, kept by a run that continues as it. */
    readonly effort?: Effort;
    readonly thinking?: Thinking;
  };
  /** The caller's sandbox; whatever it starts runs sandboxed too. */
  readonly sandbox?: SandboxSetting;
  /** The caller's bound on the permission mode (absent: the session's); what it starts is never wider. */
  readonly permissionMode?: PermissionMode;
  /** The caller's worktree: what it starts works there too (its own list keeps writes inside it). */
  readonly workdir?: Workdir;
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
  /**
   * What its `!` lines and `@` files are judged at: the caller's list with the command's or skill's
   * own deny rules, pre-approved by the caller's approvals and its own allow-list. Never wider than
   * the caller; absent: the run's.
   */
  readonly caller?: {
    readonly list: PermissionList;
    readonly approved?: readonly PermissionList[];
  };
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
  /** The answer must match this schema, given through StructuredOutput (its own definition's). */
  readonly outputSchema?: OutputSchema;
  /** Its own cap in US dollars (a subagent's `maxBudgetUsd`), within what its caller has left. */
  readonly maxBudgetUsd?: number;
  /** Its own fallback models (a subagent's `fallbackModel`), ids resolved; absent: the runner's. */
  readonly fallbackModels?: readonly string[];
  /** Its own definition's `effort` (for its requests only); absent: the runner's. */
  readonly effort?: Effort;
  /** Its own definition's `thinking` (for its requests only); absent: the runner's. */
  readonly thinking?: Thinking;
  /**
   * A subagent's worktree (`isolation: worktree`): its working folder, and the only folder its
   * writing tools (and, in the sandbox, its commands) may write. Absent: the project's.
   */
  readonly workdir?: Workdir;
  /** `isolation: worktree`: the Task call that starts it gives it a worktree of its own. */
  readonly isolation?: "worktree";
  /** `background: true`: the Task call that starts it returns at once; its answer comes later. */
  readonly background?: true;
  /** Skill bodies preloaded into its context (a subagent's `skills:`), made ready when it starts. */
  readonly preload?: readonly BodyPrompt[];
  /**
   * The narrowest permission mode of its hops (a subagent's `permissionMode` and its callers'): its
   * calls are approved in this or the session's mode, whichever is narrower. Absent: the session's.
   */
  readonly permissionMode?: PermissionMode;
}

/** A git worktree a run works in: its root, and the run's working folder inside it. */
export interface Workdir {
  readonly root: string;
  readonly cwd: string;
  readonly branch: string;
  /** The git folder git made for it (inside `commonDir/worktrees/`): agentmd's git uses this one. */
  readonly gitDir: string;
  /** The repository's git folder. */
  readonly commonDir: string;
}

/** The run a request starts, or why it cannot start. */
export type Prepared =
  | { readonly kind: "ready"; readonly spec: RunSpec }
  /** Nothing survives the intersection of the lists (a run's end says `refused`). */
  | { readonly kind: "refused"; readonly message: string }
  /** It cannot be started: an unknown name, runs nested too deep, an `agent:` it may not start. */
  | { readonly kind: "failed"; readonly message: string };

export type NotStarted = Exclude<Prepared, { readonly kind: "ready" }>;

/** An inline invocation narrows the run it is made in, instead of starting one. */
export interface Inline {
  readonly kind: "inline";
  readonly list: PermissionList;
  readonly hooks: Hooks;
  readonly approved?: readonly PermissionList[];
  readonly model: string;
  readonly prompt: BodyPrompt;
  readonly sandbox?: SandboxSetting;
  /** The invocable's own output schema, for a user's `/name` run (a model's inline skill has none). */
  readonly outputSchema?: OutputSchema;
  /** The invocable's own effort and thinking, for a user's `/name` run, likewise. */
  readonly effort?: Effort;
  readonly thinking?: Thinking;
}

/** A command or skill by name: a run of its own (`ready`: it forks), the caller's run narrowed, or why neither. */
export type Resolved = Prepared | Inline;

/** A body made ready for the model, or why it could not be (a denied or failing `!` command). */
export type Expanded =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** Where a run's events go and what it continues: given by whoever starts it. */
export interface RunIo {
  readonly signal: AbortSignal;
  readonly emit: EventSink;
  readonly sessionId: string;
  /** The conversation so far (a resumed session's); the run's prompt is added to it. */
  readonly history: readonly MessageParam[];
  /** The parent's Task (or Skill) call that starts this run. */
  readonly parentToolUseId?: string;
  /** What the user typed, when it differs from the prompt (a `/name args` line). */
  readonly typed?: string;
  /**
   * The history ends with a user turn of an interrupted run, or with the model's answer whose calls
   * were not all run (`open`): go on from it, sending no prompt.
   */
  readonly continues?: boolean;
  /** With `continues`: the history's last answer is open; these results of its calls are known, the others are run first. */
  readonly open?: readonly ContentBlockParam[];
  /** A durable transcript's write-ahead: each call's tool waits for it (see `CallContext.writeAhead`). */
  readonly writeAhead?: () => Promise<void>;
  /** The session's transcript file, which hooks are told of. */
  readonly transcriptPath?: string;
  /** What the session's SessionStart hooks said for the model: it goes beside this run's prompt. */
  readonly context?: readonly string[];
  /** The caller's budget (a child's is its parent's; a user's run's, its session's); absent: none. */
  readonly budget?: Budget;
  /** The run's trace, when tracing is on: it sees the events, and names the span of each call. */
  readonly trace?: RunTrace;
  /** The files the session read before this run (a resumed session's): its main run starts from them. */
  readonly reads?: ReadRecord;
  /** The checkpoints of the prompt's turn: every hop's edits go to them (not a worktree's). */
  readonly checkpoint?: TurnCheckpoint;
}

/** The call that starts a child run: its signal, and its tool_use id (the child's parent_tool_use_id). */
export type ChildCall = Pick<ToolContext, "signal" | "callId">;

/**
 * A run in progress, as the tools it offers that start runs (Task, Skill) see it: its spec and
 * state, and what it lends them, so that they start and expand through it without knowing how a
 * run is started.
 */
export interface ParentRun {
  readonly spec: RunSpec;
  readonly state: RunState;
  readonly runId: string;
  /** The run's working folder (its worktree's, when it has one); absent: the project's. */
  readonly cwd?: string;
  /** Its background tasks: a background subagent's run is one of them. */
  readonly background?: BackgroundRuns;
  /** Starts `spec` as a child of this run for `call`. Contract: never rejects. */
  readonly startChild: (spec: RunSpec, call: ChildCall) => Promise<RunResult>;
  /**
   * An inline skill's body made ready through this run's own tool-call path, under `state` (the
   * run's, narrowed by the skill) and the Skill call's signal.
   */
  readonly expand: (prompt: BodyPrompt, state: RunState, signal: AbortSignal) => Promise<Expanded>;
}

/** Where a run's events go, as the runner opened it. */
export interface RunOut {
  sessionId: string;
  /** The run's signal: the caller's, and the stop of a run that cannot be recorded. */
  signal: AbortSignal;
  emit: EventSink;
  transcriptPath?: string;
  /** The store's write-ahead (a durable one's), for the run's calls. */
  writeAhead?: () => Promise<void>;
  started: Fired | undefined;
  budget: Budget;
  trace?: RunTrace;
}
