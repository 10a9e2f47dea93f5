// The data of hooks: what a hook is, what it is given and what it may answer. Types only (the
// leaf of hooks.ts and hook-run.ts).
import type { HookEventName } from "../definitions/hook-events.js";
import type { HookOutcome } from "./events.js";

export type HookEvent = HookEventName;

/**
 * What a hook is told, as JSON on stdin (command hooks) or as the argument (function hooks): the
 * fields every event has, and the event's own (docs/hooks.md has the table).
 */
export interface HookPayload {
  readonly hook_event_name: HookEvent;
  readonly session_id: string;
  /** The session's transcript (JSONL of agentmd's events); "" when none is kept. */
  readonly transcript_path: string;
  readonly cwd: string;
  readonly permission_mode: string;
  /** agentmd's own: the run the event belongs to ("" for session events). */
  readonly run_id: string;
  /** PreToolUse, PostToolUse. */
  readonly tool_name?: string;
  readonly tool_input?: unknown;
  readonly tool_use_id?: string;
  /** PostToolUse only. */
  readonly tool_response?: { readonly content: string; readonly is_error: boolean };
  /** UserPromptSubmit. */
  readonly prompt?: string;
  /** SessionStart: startup, resume, clear, compact. */
  readonly source?: string;
  /** SessionEnd: clear, prompt_input_exit, other. */
  readonly reason?: string;
  /** PreCompact: auto or manual, and what a manual one was asked to keep. */
  readonly trigger?: "auto" | "manual";
  readonly custom_instructions?: string;
  /** Stop, SubagentStop: a Stop hook already made this run go on once. */
  readonly stop_hook_active?: boolean;
  /** SubagentStart, SubagentStop: the subagent's name, and its run. */
  readonly agent_type?: string;
  readonly agent_id?: string;
  /** Notification; Elicitation: the server's question. */
  readonly message?: string;
  readonly notification_type?: string;
  /** Elicitation, ElicitationResult: the MCP server that asks (the matcher's subject). */
  readonly mcp_server_name?: string;
  readonly mode?: "form";
  /** Elicitation: the form's JSON Schema. */
  readonly requested_schema?: Readonly<Record<string, unknown>>;
  /** ElicitationResult: the answer about to be sent. */
  readonly action?: ElicitAction;
  readonly content?: Readonly<Record<string, unknown>>;
}

export type ElicitAction = "accept" | "decline" | "cancel";

/** An answer to a server's question a hook gave (Elicitation) or put instead (ElicitationResult). */
export interface HookElicitAnswer {
  readonly action: ElicitAction;
  readonly content?: Readonly<Record<string, unknown>>;
}

/**
 * Where a hook was written, for messages and `agentmd audit`: `user`, `project` or `local`
 * settings, `agent.md`, a subagent or skill (`agent:NAME`, `skill:NAME`), `plugin:NAME`, `sdk`,
 * `library`. Free text, so a new source needs no change here.
 */
export type HookOrigin = string;

export interface CommandHook {
  /** A regular expression on the event's subject (a tool name and its aliases, a source, …); empty or `*` matches all. */
  readonly matcher?: string;
  readonly command: string;
  /** Seconds before the hook is stopped; default 60. */
  readonly timeout?: number;
  /**
   * The hook is not run (its project folder is not trusted), and this says why: it counts as a hook
   * that failed — a blocking event it matches is blocked with this sentence, a guard that cannot
   * run fails closed; a non-blocking one goes on.
   */
  readonly withheld?: string;
  /** Variables beside the run's environment (a plugin's `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The folder the command runs in instead of the run's (a plugin's hooks: the project folder). */
  readonly cwd?: string;
  readonly origin?: HookOrigin;
}

export interface FunctionHook {
  readonly matcher?: string;
  /**
   * Returns nothing to go on, or an answer: the library's short form (`{ block: "why" }`,
   * `{ ask: "why" }`, `{ allow: true }`, `{ context: "…" }`, `{ updatedInput }`) or the very JSON a
   * command hook prints (`{ decision, reason, hookSpecificOutput: { … } }`). `signal` aborts with
   * the run, or when `timeout` passes.
   */
  run(payload: HookPayload, options: { readonly signal: AbortSignal }): HookReply | Promise<HookReply>;
  /** Seconds before the hook counts as failed; default 60. */
  readonly timeout?: number;
  readonly origin?: HookOrigin;
}

/** A function hook's answer; undefined: go on. */
export type HookReply =
  | undefined
  | {
      readonly block?: string;
      readonly ask?: string;
      readonly allow?: boolean;
      readonly context?: string;
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      /** Elicitation, ElicitationResult: the answer to send (`content` with `accept`). */
      readonly action?: ElicitAction;
      readonly content?: Readonly<Record<string, unknown>>;
      readonly [claudeCodeKey: string]: unknown;
    };

export type Hook = CommandHook | FunctionHook;

/** Each event's hooks, in the order they run. */
export type Hooks = { readonly [E in HookEvent]?: readonly Hook[] };

/** The fields every hook of a run is given besides its event's own. */
export interface HookSession {
  readonly sessionId: string;
  readonly transcriptPath?: string;
  readonly cwd: string;
  readonly permissionMode: string;
  readonly runId: string;
}

export interface HookContext {
  readonly session: HookSession;
  /** Where a failing non-blocking hook, and a hook's exit-2 message for one, is said. */
  readonly warn: (message: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The run's signal. */
  readonly signal: AbortSignal;
  /** Set when the run is traced: each hook run is said (its span), and runs under its span's context. */
  readonly trace?: HookTrace;
}

/** The trace side of hook runs: `start` opens a hook's span, and its end says what the hook answered. */
export interface HookTrace {
  start(hook: {
    readonly event: HookEvent;
    readonly command?: string;
    readonly origin?: string;
    readonly matcher?: string;
    readonly callId?: string;
  }): HookSpan;
}

export interface HookSpan {
  /** The W3C `traceparent` the hook's process runs under (its `TRACEPARENT`). */
  readonly traceparent?: string;
  end(end: { readonly outcome: HookOutcome; readonly reason?: string; readonly exitCode?: number }): void;
}

/** What the hooks of one event decided together. */
export type Fired =
  /** Go on; `allow`: a hook approved (PreToolUse: no approval is asked, the lists still judge). */
  | {
      readonly kind: "continue" | "allow";
      readonly context: readonly string[];
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      /** Elicitation: the first hook's answer for the user; ElicitationResult: the last hook's replacement. */
      readonly elicitation?: HookElicitAnswer;
    }
  /** A hook blocked (PreToolUse: the call; UserPromptSubmit: the prompt; Stop: the stop), or asked. */
  | { readonly kind: "block" | "ask"; readonly reason: string; readonly context: readonly string[] }
  /** A hook of a blocking event failed (or was withheld, or the run was aborted): fail closed. */
  | { readonly kind: "failed"; readonly reason: string; readonly context: readonly string[] }
  /** `continue: false`: stop. */
  | { readonly kind: "halt"; readonly reason: string; readonly context: readonly string[] };
