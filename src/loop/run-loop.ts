import type PQueue from "p-queue";
import type { ContentBlock, ContentBlockParam, MessageParam, ToolUnion } from "../model/messages.js";
import type { Model, ModelRequest } from "../model/model.js";
import { addUsage, costOf, type Price, priceOf, ZERO_USAGE } from "../model/models.js";
import type { PermissionList } from "../permissions/types.js";
import { normaliseInput } from "../tools/normalise-input.js";
import type { OfferedTool } from "../tools/registry.js";
import { compactConversation, contextTokens, needsCompaction } from "./auto-compact.js";
import { type ConcurrencySettings, dispatchBatch } from "./dispatch.js";
import type { RunOutcome, RunResult } from "./events.js";
import { type CallContext, notRunResult, type ToolUse } from "./execute-call.js";
import { serverCalls, serverToolsOf } from "./server-tools.js";

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
}

/** What the API says of a request over the model's context window. */
const TOO_LONG = /prompt is too long|context window|too many tokens/i;

const CUT_OFF =
  "The response hit max_tokens before this call was complete, so it was not executed. Send it again, shorter.";

/**
 * The run loop, written once: request, stream, dispatch the tool calls, repeat — until the model
 * stops, a limit is hit, or the run is aborted. Everything it does is an event on `call.emit`.
 * `messages` is the conversation so far, ending with the new user message; it is extended in
 * place, and every tool_use in it gets exactly one tool_result.
 */
export async function runLoop(cfg: LoopConfig, messages: MessageParam[]): Promise<RunResult> {
  const { call } = cfg;
  const base = { runId: call.runId, depth: call.depth };
  const started = performance.now();
  const meter = call.state.meter;
  let turns = 0;
  let outcome: RunOutcome = "done";
  let note: string | undefined;
  let toolsFor: PermissionList | undefined;
  let toolsVersion: number | undefined;
  let apiTools: ToolUnion[] = [];
  let servers = serverToolsOf([]);
  let lastContext = 0;
  let compactedForLimit = false;
  const turnContext = {
    signal: call.signal,
    onText: (text: string) => call.emit({ ...base, type: "message_delta", text }),
    onRetry: (attempt: number, reason: string, delayMs: number) =>
      call.emit({ ...base, type: "retry", attempt, reason, delayMs }),
  };
  for (;;) {
    // The tools shown change when the list narrows, or when ToolSearch reveals deferred ones.
    if (toolsFor !== call.state.list || toolsVersion !== call.state.offerVersion) {
      toolsFor = call.state.list;
      toolsVersion = call.state.offerVersion;
      const offered = cfg.offer(toolsFor);
      apiTools = toApiTools(offered, cfg.promptCaching);
      servers = serverToolsOf(offered);
    }
    if (turns >= cfg.maxIterations) {
      outcome = "limit";
      note = `the run stopped after ${cfg.maxIterations} model turns (the turn limit: --max-turns, or maxIterations in agent.md); raise it or ask for less`;
      call.emit({ ...base, type: "limit", kind: "max_iterations", message: note });
      break;
    }
    // A conversation near the model's context window goes on as a summary of itself.
    if (needsCompaction(lastContext, cfg.contextWindow)) {
      if (await compactConversation(cfg, call, messages, lastContext)) lastContext = 0;
      if (call.signal.aborted) {
        outcome = "aborted";
        break;
      }
    }
    turns++;
    call.emit({ ...base, type: "turn_start", turn: turns });
    const turn = await cfg.model.turn(request(cfg, apiTools, messages), turnContext);
    if (turn.kind === "aborted") {
      outcome = "aborted";
      break;
    }
    // Once a turn: a request the model found too long is compacted and sent again.
    if (turn.kind === "error" && TOO_LONG.test(turn.message) && !compactedForLimit) {
      compactedForLimit = true;
      turns--;
      if (await compactConversation(cfg, call, messages, lastContext)) continue;
    }
    if (turn.kind === "error") {
      outcome = "error";
      note = turn.message;
      call.emit({ ...base, type: "error", code: turn.code, message: turn.message });
      break;
    }
    const msg = turn.message;
    const turnUsage = addUsage(ZERO_USAGE, msg.usage);
    const turnCost = costOf(cfg.modelId, turnUsage, cfg.prices);
    const unpriced = priceOf(cfg.modelId, cfg.prices) === undefined ? { costUnknown: true as const } : {};
    meter.usage = addUsage(meter.usage, turnUsage);
    meter.costUsd += turnCost;
    if (unpriced.costUnknown) meter.costUnknown = true;
    call.emit({ ...base, type: "usage", turn: turns, usage: turnUsage, costUsd: turnCost, ...unpriced });
    lastContext = contextTokens(turnUsage);
    compactedForLimit = false;
    const content = toParams(msg.content);
    call.emit({ ...base, type: "message_end", turn: turns, stopReason: msg.stop_reason, content });
    for (const c of serverCalls(content, servers)) call.emit({ ...base, type: "server_tool", ...c });
    const invalid = turn.invalidInputs;
    const uses: ToolUse[] = content.flatMap((b) =>
      b.type === "tool_use"
        ? [
            {
              id: b.id,
              name: b.name,
              input: b.input,
              ...(invalid?.has(b.id) && { invalidInput: invalid.get(b.id) }),
            },
          ]
        : [],
    );
    if (content.length > 0) messages.push({ role: "assistant", content });
    const stop = msg.stop_reason;
    // Calls are answered whatever the stop reason says (a tool_use under end_turn is still a call);
    // only calls cut off by max_tokens are not run.
    if (uses.length > 0 && stop !== "max_tokens" && stop !== "refusal") {
      const results = await dispatchBatch(uses, call, cfg.pool, cfg.concurrency);
      messages.push({ role: "user", content: results });
      call.emit({ ...base, type: "turn_end", turn: turns, toolResults: results });
      if (call.signal.aborted) {
        outcome = "aborted";
        break;
      }
      continue;
    }
    if (stop === "max_tokens") {
      note = "the response hit max_tokens and was cut off";
      call.emit({ ...base, type: "limit", kind: "max_tokens", message: note });
      if (uses.length > 0) {
        const results = uses.map((u) => notRunResult(u, CUT_OFF));
        messages.push({ role: "user", content: results });
        call.emit({ ...base, type: "turn_end", turn: turns, toolResults: results });
        continue;
      }
      outcome = "limit";
      break;
    }
    if (stop === "pause_turn") continue;
    if (stop === "refusal") {
      outcome = "declined";
      note = "the model declined to answer (stop reason: refusal)";
      call.emit({ ...base, type: "refusal", message: note });
      break;
    }
    if (stop === "model_context_window_exceeded" && !compactedForLimit) {
      compactedForLimit = true;
      if (await compactConversation(cfg, call, messages, lastContext)) continue;
    }
    if (stop === "model_context_window_exceeded") {
      outcome = "error";
      note =
        "the conversation no longer fits the model's context window; start a new session or ask for less";
      call.emit({ ...base, type: "error", code: "context_window_exceeded", message: note });
      break;
    }
    break;
  }
  if (outcome === "aborted") call.emit({ ...base, type: "abort", message: "the run was aborted" });
  const text = lastAssistantText(messages);
  const { usage, costUsd } = meter;
  const unknown = meter.costUnknown && { costUnknown: meter.costUnknown };
  call.emit({
    ...base,
    type: "run_end",
    outcome,
    text,
    turns,
    usage,
    costUsd,
    ...unknown,
    ms: performance.now() - started,
  });
  return {
    sessionId: cfg.sessionId,
    runId: call.runId,
    outcome,
    text,
    turns,
    usage,
    costUsd,
    ...unknown,
    messages,
    ...(note !== undefined && { message: note }),
  };
}

const EPHEMERAL = { type: "ephemeral" } as const;

/** The request's tools: ours by name and schema, a server tool as the definition it is offered as. */
function toApiTools(offered: readonly OfferedTool[], caching: boolean): ToolUnion[] {
  return offered.map((r, i) => {
    const last = caching && i === offered.length - 1 && { cache_control: EPHEMERAL };
    if (r.server) return { ...r.server, ...last } as unknown as ToolUnion;
    return {
      name: r.apiName,
      description: r.tool.description,
      input_schema: r.apiSchema as Extract<ToolUnion, { input_schema: unknown }>["input_schema"],
      ...last,
    };
  });
}

/**
 * The request for the next turn. With prompt caching, `cache_control` marks the last tool, the
 * system prompt and the newest user turn (three of the four breakpoints the API allows).
 */
function request(cfg: LoopConfig, tools: ToolUnion[], messages: readonly MessageParam[]): ModelRequest {
  const sent = cfg.promptCaching ? withCachedTail(messages) : [...messages];
  return {
    model: cfg.modelId,
    max_tokens: cfg.maxTokens,
    messages: sent,
    ...(cfg.system && {
      system: cfg.promptCaching
        ? [{ type: "text" as const, text: cfg.system, cache_control: EPHEMERAL }]
        : cfg.system,
    }),
    ...(tools.length > 0 && { tools }),
  };
}

function withCachedTail(messages: readonly MessageParam[]): MessageParam[] {
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i] as MessageParam;
    if (m.role !== "user") continue;
    const blocks: ContentBlockParam[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : [...m.content];
    const last = blocks[blocks.length - 1];
    if (last && last.type !== "thinking" && last.type !== "redacted_thinking") {
      blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL } as ContentBlockParam;
      out[i] = { role: "user", content: blocks };
    }
    break;
  }
  return out;
}

/** Response blocks as request blocks; empty text blocks dropped (the API refuses them). */
function toParams(content: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of content) {
    if (b.type === "text") {
      if (b.text !== "") out.push({ type: "text", text: b.text });
    } else if (b.type === "tool_use") {
      // The API takes an object back; a string or list the model sent is sent back as parsed.
      const n = normaliseInput(b.name, b.input);
      out.push({ type: "tool_use", id: b.id, name: b.name, input: n.ok ? { ...n.input } : {} });
    } else {
      out.push(b as unknown as ContentBlockParam);
    }
  }
  return out;
}

function lastAssistantText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageParam;
    if (m.role !== "assistant") continue;
    if (typeof m.content === "string") return m.content;
    const text = m.content
      .filter((b): b is ContentBlockParam & { type: "text"; text: string } => b.type === "text")
      .map((b) => b.text)
      .join("");
    if (text !== "") return text;
  }
  return "";
}
