import type PQueue from "p-queue";
import type { OutputSchema } from "../definitions/output-schema.js";
import type { ContentBlockParam, MessageParam, StopReason, ToolUnion } from "../model/messages.js";
import type { Model } from "../model/model.js";
import type { Reasoning } from "../model/model-features.js";
import type { Price } from "../model/models.js";
import type { PermissionList } from "../permissions/types.js";
import type { OfferedTool } from "../tools/registry.js";
import { compactConversation } from "./auto-compact.js";
import type { Budget } from "./budget.js";
import type { ConcurrencySettings } from "./dispatch.js";
import type { LimitKind, RunOutcome } from "./events.js";
import type { CallContext, ToolUse } from "./execute-call.js";

export interface LoopConfig {
  readonly model: Model;
  /** The model id requests name. */
  readonly modelId: string;
  readonly system: string;
  readonly maxTokens: number;
  readonly maxIterations: number;
  readonly promptCaching: boolean;
  /** The tools shown to the model: what the effective list offers (asked again each turn). */
  readonly offer: (list: PermissionList) => readonly OfferedTool[];
  readonly call: CallContext;
  readonly pool: PQueue;
  readonly concurrency: ConcurrencySettings;
  readonly prices?: Readonly<Record<string, Price>>;
  readonly sessionId: string;
  /** Tokens the model takes in one request: near it, the conversation is compacted and goes on. */
  readonly contextWindow: number;
  /** The answer must match this schema, given through the StructuredOutput tool. */
  readonly outputSchema?: OutputSchema;
  /** What the run may spend: checked before every request, charged after every response. */
  readonly budget?: Budget;
  /** Models for a request whose model is overloaded after its retries, in order. */
  readonly fallbackModels?: readonly string[];
  /** `effort` and `thinking`: sent as each request's model takes them (model/model-features.ts). */
  readonly reasoning?: Reasoning;
  /**
   * A resumed run whose conversation ends with the model's answer, its calls not all run: these
   * results are known, the other calls are run before the first request (the answer is not asked again).
   */
  readonly open?: readonly ContentBlockParam[];
}

/** The tools the requests show, and the list (and offer version) they were made for. */
export interface Offered {
  readonly list?: PermissionList;
  readonly version?: number;
  readonly tools: readonly ToolUnion[];
  /** The server tools among them, by the name their `server_tool_use` blocks carry. */
  readonly servers: ReadonlyMap<string, OfferedTool>;
}

/**
 * Everything the loop carries from step to step: one object, so that each step says what it
 * changes. Contract: `messages` is a valid conversation between steps, every tool_use answered
 * by the user message after it (the answer-calls step writes it right after the turn).
 */
export interface LoopState {
  /** The conversation, extended in place; the result hands it back. */
  readonly messages: MessageParam[];
  /** Model turns started: each one a `turn_start` event. */
  turns: number;
  offered: Offered;
  /** Tokens of the context window the last turn took (0 after a compaction). */
  contextTokens: number;
  /** Compacted for the model's own limit since its last message: not again until one comes. */
  compactedForLimit: boolean;
  /** A Stop hook made this run go on (its next Stop hook is told). */
  stopHookActive: boolean;
  /** The StructuredOutput answer and failed attempts, for a run with an output schema. */
  readonly structured: StructuredState;
  /** The model requests go to once a fallback answered (`modelId` until then). */
  modelId?: string;
  /** Notices of how effort and thinking were sent, each told once a run. */
  readonly noticed: Set<string>;
}

/** What the run answered through StructuredOutput, and how often it failed to. */
export interface StructuredState {
  attempts: number;
  /** The first call that matched the schema: the run's answer. */
  accepted?: { readonly value: unknown };
}

/** How a run ended, as its run_end and result say (`message`: what happened, in one sentence). */
export interface Ending {
  readonly outcome: RunOutcome;
  readonly message?: string;
  /** For `limit`: which one. */
  readonly limit?: LimitKind;
}

/** A turn's response, as the steps after it use it. */
export interface Response {
  readonly content: readonly ContentBlockParam[];
  readonly uses: readonly ToolUse[];
  readonly stop: StopReason | null;
}

export function newLoopState(messages: MessageParam[]): LoopState {
  return {
    messages,
    turns: 0,
    offered: { tools: [], servers: new Map() },
    contextTokens: 0,
    compactedForLimit: false,
    stopHookActive: false,
    structured: { attempts: 0 },
    noticed: new Set(),
  };
}

/** The model the next request names: the run's, or the fallback that took over. */
export const currentModel = (cfg: LoopConfig, state: LoopState) => state.modelId ?? cfg.modelId;

/** The event fields every event of this run carries. */
export const baseOf = (cfg: LoopConfig) => ({ runId: cfg.call.runId, depth: cfg.call.depth });

/** Compacts the conversation in place; true when it was (it then takes no tokens yet). */
export async function compact(cfg: LoopConfig, state: LoopState): Promise<boolean> {
  const done = await compactConversation(cfg, cfg.call, state.messages, state.contextTokens);
  if (done) state.contextTokens = 0;
  return done;
}
