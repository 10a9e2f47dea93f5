import type { MessageParam } from "../model/messages.js";
import type { Model } from "../model/model.js";
import { addUsage, costOf, type Price, type Usage } from "../model/models.js";
import { type Budget, charge } from "./budget.js";
import { summarise, summaryMessage } from "./compaction.js";
import { type CallContext, hookContext } from "./execute-call.js";
import { fireHooks } from "./hooks.js";

/** A long conversation goes on as a summary once it takes this share of the context window. */
export const COMPACT_AT = 0.8;

export interface CompactionConfig {
  readonly model: Model;
  readonly modelId: string;
  readonly maxTokens: number;
  /** Tokens the model can take in one request. */
  readonly contextWindow: number;
  readonly prices?: Readonly<Record<string, Price>>;
  readonly budget?: Budget;
}

/** The tokens one turn took of the context window: its whole input (cached or not) and its output. */
export function contextTokens(u: Usage): number {
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens;
}

/** Whether a conversation that took `tokens` at its last turn must be compacted before the next. */
export function needsCompaction(tokens: number, contextWindow: number): boolean {
  return tokens >= COMPACT_AT * contextWindow;
}

/**
 * Replaces `messages`, in place, with a summary of all but their tail: the last user message, and
 * the assistant turn whose tool calls it answers. The summary's usage is the run's; the compaction
 * is an event of the run (and so of its transcript). Returns false when it could not be made (the
 * conversation goes on as it was, and the model's limit decides).
 */
export async function compactConversation(
  cfg: CompactionConfig,
  call: CallContext,
  messages: MessageParam[],
  tokensBefore: number,
): Promise<boolean> {
  const kept = keptTail(messages);
  const head = messages.slice(0, messages.length - kept);
  if (head.length === 0) return false;
  const base = { runId: call.runId, depth: call.depth };
  const pre = await fireHooks(
    call.state.hooks,
    "PreCompact",
    { trigger: "auto", custom_instructions: "" },
    hookContext(call),
  );
  if (pre.kind === "block" || pre.kind === "failed" || pre.kind === "halt") {
    if (!call.signal.aborted)
      call.emit({
        ...base,
        type: "warning",
        message: `the conversation was not compacted: a PreCompact hook ${pre.kind === "failed" ? "failed" : "blocked it"}: ${pre.reason}`,
      });
    return false;
  }
  const s = await summarise(cfg.model, { model: cfg.modelId, maxTokens: cfg.maxTokens }, head, call.signal);
  if (!s.ok) {
    if (!call.signal.aborted)
      call.emit({
        ...base,
        type: "warning",
        message: `the conversation could not be compacted: ${s.message}`,
      });
    return false;
  }
  const meter = call.state.meter;
  meter.usage = addUsage(meter.usage, s.usage);
  const cost = costOf(cfg.modelId, s.usage, cfg.prices);
  meter.costUsd += cost;
  if (cfg.budget) charge(cfg.budget, cost);
  messages.splice(0, head.length, summaryMessage(s.summary));
  call.emit({ ...base, type: "compaction", summary: s.summary, kept, tokensBefore });
  return true;
}

/** How many messages at the end stay as they are: a pending tool exchange, or the last prompt. */
function keptTail(messages: readonly MessageParam[]): number {
  const last = messages.at(-1);
  const before = messages.at(-2);
  const answersCalls =
    last?.role === "user" &&
    before?.role === "assistant" &&
    Array.isArray(before.content) &&
    before.content.some((b) => b.type === "tool_use");
  if (answersCalls) return 2;
  return last?.role === "user" ? 1 : 0;
}
