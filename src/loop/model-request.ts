import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { ModelRequest } from "../model/model.js";
import { currentModel, type LoopConfig, type LoopState } from "./loop-state.js";
import { EPHEMERAL } from "./offer-tools.js";

/**
 * The request for the next turn. With prompt caching, `cache_control` marks the last tool, the
 * system prompt and the newest user turn (three of the four breakpoints the API allows).
 */
export function modelRequest(cfg: LoopConfig, state: LoopState): ModelRequest {
  const { messages } = state;
  const tools = state.offered.tools;
  const sent = cfg.promptCaching ? withCachedTail(messages) : [...messages];
  return {
    model: currentModel(cfg, state),
    max_tokens: cfg.maxTokens,
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
