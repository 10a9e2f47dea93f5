// The types of a call's execution: what a run's calls are executed in, and what a call is and returns.
import type { ToolResultBlockParam } from "../model/messages.js";
import type { Usage } from "../model/models.js";
import type { Approval, PermissionMode } from "../permissions/approval.js";
import type { DecideContext, PermissionList, ToolCall } from "../permissions/types.js";
import type { RunSandbox } from "../sandbox/run-sandbox.js";
import type { BackgroundShells } from "../tools/builtin/background-shells.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Logger, ReadRecord, SchemaValidationMode, ToolResult } from "../tools/types.js";
import type { BackgroundRuns } from "./background-runs.js";
import type { TurnCheckpoint } from "./checkpoints.js";
import type { CallDecision, EventSink } from "./events.js";
import type { Hooks } from "./hooks.js";

/** What every call of one run is executed in. */
export interface CallContext {
  readonly registry: ToolRegistry;
  /** The run's changing state: its effective allow-list, and the meter of what it spent. */
  readonly state: RunState;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly readRecord: ReadRecord;
  readonly gateMode: SchemaValidationMode;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly runId: string;
  readonly sessionId: string;
  /** The session's transcript file, for hooks (`transcript_path`). */
  readonly transcriptPath?: string;
  /** The session's permission mode, for hooks (`permission_mode`). */
  readonly permissionMode?: string;
  readonly depth: number;
  readonly emit: EventSink;
  /** The agent the run runs as, for approval prompts. */
  readonly agent?: string;
  /** The approval tier of the session; absent: every call the lists allow runs. */
  readonly approval?: CallApproval;
  /** The checkpoints of the prompt's turn (a subagent's calls belong to its top run's); absent: none kept. */
  readonly checkpoint?: TurnCheckpoint;
  /** The run's background commands; the run closes them when it ends. */
  readonly shells?: BackgroundShells;
  /** The run's background tasks (background subagents): waited for, or stopped, before it ends. */
  readonly background?: BackgroundRuns;
  /**
   * Set when the run is traced: the `traceparent` of a call's span, put in the environment of the
   * processes the call starts (Bash, hooks); each call's tool_end then notes its decision's rule.
   */
  readonly traceparent?: (callId: string) => string | undefined;
  /**
   * Resolves once every event written so far is stored (a durable transcript's write-ahead): a
   * call's tool waits for it after its `tool_run`, so a run cut off after that knows the call may
   * have run. Contract: never rejects (a store that fails aborts the run's signal instead).
   */
  readonly writeAhead?: () => Promise<void>;
}

/** A call that needs a user's consent, as a prompt shows it. */
export interface ApprovalRequest {
  readonly call: ToolCall;
  /** Why it asks: not pre-approved, a rule or a hook asks. */
  readonly reason: string;
  /** Which agent makes the call (a subagent's calls are asked for too). */
  readonly agent: string;
  readonly depth: number;
  /** The model's tool_use id of the call. */
  readonly callId?: string;
}

export type ApprovalAnswer =
  /** This call; with `input`, the call as the approver changed it (judged again by the lists). */
  | { readonly kind: "once"; readonly input?: Readonly<Record<string, unknown>> }
  /** This call, and calls like it (`sessionRuleFor`), for the rest of the session. */
  | { readonly kind: "session" }
  | { readonly kind: "deny"; readonly reason?: string };

/** The session's approval tier, as the executor uses it (built by the invocation layer). */
export interface CallApproval {
  /**
   * `approved`: the run's own pre-approving lists (its commands' and skills'); `list`: the list the
   * call was judged by, which a read-only command's paths are judged by as Read calls.
   */
  check(
    call: ToolCall,
    ctx: DecideContext,
    approved?: readonly PermissionList[],
    list?: PermissionList,
  ): Approval;
  /** Asks a user; undefined when no one can be asked (`agentmd run`). */
  ask(request: ApprovalRequest): Promise<ApprovalAnswer | undefined>;
  /** Calls like this one run without asking for the rest of the session (`ctx`: as it was judged). */
  allowForSession(call: ToolCall, ctx: DecideContext): void;
  /** Later calls are approved in this mode (Claude Code's `setPermissionMode`). */
  setMode?(mode: PermissionMode): void;
  /**
   * The tier as one run sees it: its calls are approved in `mode` or the session's, whichever is
   * narrower at the time of each call (a subagent's `permissionMode`); `workingDir` is a working
   * folder of its own (a subagent's worktree, a copy of the project).
   */
  within?(bound: { readonly mode?: PermissionMode; readonly workingDir?: string }): CallApproval;
  /** The refusal when no one can be asked: what to write where, to allow such calls. */
  howToAllow(call: ToolCall, reason: string): string;
  /**
   * The part of `list` that runs without asking, for tools no one can be asked about because they
   * run on the API's side (WebSearch); undefined: none of it.
   */
  unasked(list: PermissionList): PermissionList | undefined;
}

/**
 * What a run carries from turn to turn. `list` is the effective allow-list: what is offered, and what
 * each call is judged by; an inline skill narrows it for the rest of the run (never widens it), and
 * adds its `hooks` to the run's. `meter` is what the run spent, its children's runs included.
 */
export interface RunState {
  list: PermissionList;
  hooks: Hooks;
  readonly meter: { usage: Usage; costUsd: number; costUnknown?: true };
  /**
   * Bumped when the tools a request shows change while the list does not (ToolSearch revealed
   * deferred tools); the loop then asks `offer` again. Absent: never changes.
   */
  offerVersion?: number;
  /**
   * Set when the run's commands run inside the OS sandbox. Each call gets the sandbox of
   * the list in force at that call; an inline skill may turn it on for the rest of the run, and
   * nothing turns it off.
   */
  sandbox?: RunSandbox;
  /** Lists whose calls need no user's approval in this run (its commands' and skills' own). */
  approved?: readonly PermissionList[];
}

export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** The input as the model sent it, when it was not one complete JSON object: never executed. */
  readonly invalidInput?: string;
}

export interface CallOutcome {
  readonly block: ToolResultBlockParam;
  readonly decision: CallDecision;
  readonly result: ToolResult;
}
