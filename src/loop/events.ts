import type { HookEventName } from "../definitions/hook-events.js";
import type { McpTransport } from "../definitions/types.js";
import type { ContentBlockParam, MessageParam, StopReason } from "../model/messages.js";
import type { ModelErrorCode } from "../model/model.js";
import type { Usage } from "../model/models.js";
import type { DecisionNote } from "../permissions/decision-note.js";
import type { ToolEvent } from "../tools/types.js";

/**
 * How a tool call was settled, for renderers and transcripts. `error`: judging or preparing the
 * call threw (a broken rule, hook or gate), so it was answered as a failure.
 */
export type CallDecision =
  | "allowed"
  | "error"
  | "denied"
  | "invalid"
  | "blocked-by-hook"
  | "interrupted"
  | "not-executed";

/**
 * The `code` of a run's `error` event: why a model request failed (`ModelErrorCode`), or why the
 * run could not go on or start.
 */
export type RunErrorCode =
  | ModelErrorCode
  /** The conversation no longer fits the model's context window, even compacted. */
  | "context_window_exceeded"
  /** No tool survives the run's allow-lists (or none of the tools they name exists). */
  | "refused_by_permissions"
  /** The run asks for the OS sandbox and it cannot be had here. */
  | "sandbox_unavailable"
  /** The invocation could not be made ready: an unknown `/name`, a denied `!` block, an MCP prompt that failed. */
  | "invocation_failed"
  /** An MCP server the run needs could not be started (the allow-list names no other tool that exists). */
  | "mcp_server_failed"
  /** A hook blocked the prompt or the session (UserPromptSubmit, SessionStart, SubagentStart). */
  | "blocked_by_hook"
  /** A hook of a blocking event failed, timed out or was withheld: the run fails closed. */
  | "hook_failed"
  /** The run has a budget and its model no known price: it could spend without limit. */
  | "unpriced_under_budget";

/** Which limit ended a run (or cut a response off, for `max_tokens`). */
export type LimitKind = "max_iterations" | "max_tokens" | "max_structured_output_retries" | "max_budget_usd";

/** `refused`: the allow-lists left no tool; `declined`: the model refused to answer. */
export type RunOutcome = "done" | "limit" | "refused" | "declined" | "error" | "aborted";

/** How one hook run ended: its answer, or `failed` (timed out, exited otherwise) or `withheld` (not trusted). */
export type HookOutcome = "continue" | "allow" | "block" | "ask" | "halt" | "failed" | "withheld";

interface Base {
  readonly runId: string;
  /** 0 for the main run, 1 for its subagents, and so on. */
  readonly depth: number;
}

/**
 * Everything a run does, as one tagged union grouped by lifecycle. The CLI renderer, the
 * transcript writer and the tests all consume this same stream.
 */
export type RunEvent =
  | (Base & {
      readonly type: "run_start";
      readonly sessionId: string;
      readonly agent: string;
      readonly model: string;
      readonly tools: readonly string[];
      readonly parentRunId?: string;
      /** The Task (or Skill) call of the parent run that started this one. */
      readonly parentToolUseId?: string;
      /** The line the user typed, for a `/name args` run. */
      readonly input?: string;
      /** The caller's id of the prompt a top run answers (the Agent SDK's user message uuid). */
      readonly promptId?: string;
      /** The effective allow-list the run runs with, rule by rule (traced runs only). */
      readonly list?: readonly string[];
      /** The MCP servers the run could reach, and how their start went (`needs-auth`: it wants a sign-in). */
      readonly mcpServers?: readonly {
        readonly name: string;
        readonly status: "connected" | "failed" | "needs-auth" | "pending";
      }[];
    })
  | (Base & { readonly type: "user_message"; readonly content: MessageParam["content"] })
  | (Base & { readonly type: "turn_start"; readonly turn: number })
  | (Base & { readonly type: "message_delta"; readonly text: string })
  | (Base & {
      readonly type: "message_end";
      readonly turn: number;
      readonly stopReason: StopReason | null;
      readonly content: readonly ContentBlockParam[];
    })
  | (Base & {
      readonly type: "tool_start";
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
    })
  /**
   * The call's tool starts now: its permission, hooks and approval passed. A durable transcript
   * holds it before the tool runs, so a call resumed from a transcript that has its `tool_start`
   * and no `tool_run` never ran (it is run), and one with a `tool_run` and no `tool_end` may have.
   */
  | (Base & { readonly type: "tool_run"; readonly id: string; readonly name: string })
  | (Base & {
      readonly type: "tool_end";
      readonly id: string;
      readonly name: string;
      readonly decision: CallDecision;
      readonly isError: boolean;
      readonly content: string;
      readonly ms: number;
      /** Which rule decided (`file:line`), and whether a user was asked: what `agentmd view` and traces show. */
      readonly permission?: DecisionNote;
    })
  /**
   * A call the model API ran on its side within the response (WebSearch), said once the response
   * is complete: what was asked and, in one line, what came back.
   */
  | (Base & {
      readonly type: "server_tool";
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      readonly isError: boolean;
      readonly content: string;
    })
  /**
   * One hook run (traced runs only), from its start to its answer. `callId`: the tool call a
   * PreToolUse or PostToolUse hook is run for. A session's hooks before its first run have `runId` "".
   */
  | (Base & {
      readonly type: "hook_start";
      readonly id: string;
      readonly event: HookEventName;
      /** The command, for a command hook. */
      readonly command?: string;
      readonly origin?: string;
      readonly matcher?: string;
      readonly callId?: string;
    })
  | (Base & {
      readonly type: "hook_end";
      readonly id: string;
      readonly outcome: HookOutcome;
      readonly reason?: string;
      readonly exitCode?: number;
    })
  /**
   * An MCP server starting (traced runs only), said by the run that started it: a subagent's by its
   * parent's Task call (`callId`), a top run's before its run_start.
   */
  | (Base & {
      readonly type: "mcp_server_start";
      readonly id: string;
      readonly server: string;
      readonly transport: McpTransport;
      readonly callId?: string;
    })
  | (Base & {
      readonly type: "mcp_server_end";
      readonly id: string;
      readonly tools?: number;
      readonly prompts?: number;
      readonly error?: string;
    })
  /** What a tool tells its run as it runs (`todos`: TodoWrite's list, whole, each time it changes). */
  | (Base & ToolEvent)
  | (Base & {
      readonly type: "turn_end";
      readonly turn: number;
      readonly toolResults: readonly ContentBlockParam[];
    })
  | (Base & {
      readonly type: "usage";
      readonly turn: number;
      readonly usage: Usage;
      readonly costUsd: number;
      /** The model has no known price: `costUsd` counts nothing for it. */
      readonly costUnknown?: true;
    })
  | (Base & {
      readonly type: "retry";
      readonly attempt: number;
      readonly reason: string;
      readonly delayMs: number;
    })
  | (Base & {
      readonly type: "limit";
      readonly kind: LimitKind;
      readonly message: string;
    })
  | (Base & {
      readonly type: "compaction";
      /** What stands for the conversation before this point. */
      readonly summary: string;
      /** The messages at the end of the conversation kept after the summary (a pending tool call). */
      readonly kept: number;
      /** How many tokens the conversation took before. */
      readonly tokensBefore: number;
      /** The session it was compacted from (`/compact`), when it started a new one. */
      readonly from?: string;
    })
  /**
   * The conversation was put back to just before the top run `to` (its prompt): a resume goes on
   * from there (`/rewind N conversation`). Written between runs, with `runId` "".
   */
  | (Base & { readonly type: "rewind"; readonly to: string })
  | (Base & { readonly type: "refusal"; readonly message: string })
  | (Base & { readonly type: "warning"; readonly message: string })
  | (Base & { readonly type: "error"; readonly code: RunErrorCode; readonly message: string })
  | (Base & { readonly type: "abort"; readonly message: string })
  | (Base & Omit<RunEnd, "message"> & { readonly type: "run_end"; readonly ms: number });

export type EventSink = (event: RunEvent) => void;

export interface RunResult {
  readonly sessionId: string;
  readonly runId: string;
  readonly outcome: RunOutcome;
  /** The final assistant text. */
  readonly text: string;
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
  /** Some turn's model has no known price: `costUsd` is not the whole cost (show it as unknown). */
  readonly costUnknown?: true;
  /** The conversation, valid to send again: every tool_use has its tool_result. */
  readonly messages: readonly MessageParam[];
  /** For `error`, `refused`, `limit` and `declined`: what happened, in one sentence. */
  readonly message?: string;
  /** The transcript file, when every event of the run was written to it (a resume can rely on it). */
  readonly transcript?: string;
  /** The run stopped because its transcript could not be written (a runner's `transcript.required`). */
  readonly unrecorded?: true;
  /** For `limit`: which one. */
  readonly limit?: LimitKind;
  /** The answer given through StructuredOutput (a run with an output schema); `text` is its JSON. */
  readonly structuredOutput?: unknown;
}

/** How a run ended: the one object its `run_end` event and its result are both made of. */
export interface RunEnd {
  readonly outcome: RunOutcome;
  /** The final assistant text. */
  readonly text: string;
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly costUnknown?: true;
  /** For `error`, `refused`, `limit` and `declined`: what happened, in one sentence (not in run_end). */
  readonly message?: string;
  readonly limit?: LimitKind;
  readonly structuredOutput?: unknown;
}
