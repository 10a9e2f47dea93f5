import type { ToolUnion } from "../model/messages.js";
import type { OfferedTool } from "../tools/registry.js";
import type { LoopConfig, LoopState } from "./loop-state.js";
import { serverToolsOf } from "./server-tools.js";
import { structuredOutputTool } from "./structured-output.js";

export const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The offer-tools step: the tools the next request shows. They change when the list narrows (an
 * inline skill), or when ToolSearch reveals deferred ones (the offer version); else they stay.
 */
export function offerTools(cfg: LoopConfig, state: LoopState): void {
  const { list, offerVersion } = cfg.call.state;
  if (state.offered.list === list && state.offered.version === offerVersion) return;
  const offered = cfg.offer(list);
  state.offered = {
    list,
    ...(offerVersion !== undefined && { version: offerVersion }),
    tools: [
      ...(cfg.outputSchema ? [structuredOutputTool(cfg.outputSchema)] : []),
      ...toApiTools(offered, cfg.promptCaching),
    ],
    servers: serverToolsOf(offered),
  };
}

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
