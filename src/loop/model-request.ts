import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { ModelRequest } from "../model/model.js";
import { reasoningParams } from "../model/model-features.js";
import { currentModel, type LoopConfig, type LoopState } from "./loop-state.js";
import { EPHEMERAL } from "./offer-tools.js";

/**
 * The request for the next turn, with `effort` and `thinking` as its model takes them (what is not
 * sent is told once, as a warning of the run). With prompt caching, `cache_control` marks the last tool, the
 * system prompt and the newest user turn (three of the four breakpoints the API allows).
 */
export function modelRequest(cfg: LoopConfig, state: LoopState): ModelRequest {
  const { messages } = state;
  const tools = state.offered.tools;
  const sent = cfg.promptCaching ? withCachedTail(messages) : [...messages];
  const model = currentModel(cfg, state);
  const { notices, ...reasoning } = reasoningParams(model, cfg.reasoning ?? {}, cfg.maxTokens);
  for (const message of notices) {
    if (state.noticed.has(message)) continue;
    state.noticed.add(message);
    cfg.call.emit({ runId: cfg.call.runId, depth: cfg.call.depth, type: "warning", message });
  }
  return {
    model,
    ...reasoning,
    messages: sent,
    ...(cfg.system && {
      system: cfg.promptCaching
        ? [{ type: "text" as const, text: cfg.system, cache_control: EPHEMERAL }]
        : cfg.system,
    }),
    ...(tools.length > 0 && { tools: [...tools] }),
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
