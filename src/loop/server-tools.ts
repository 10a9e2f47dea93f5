import type { ContentBlockParam } from "../model/messages.js";
import type { OfferedTool } from "../tools/registry.js";
import type { RunEvent } from "./events.js";

export type ServerCall = Omit<Extract<RunEvent, { type: "server_tool" }>, "runId" | "depth" | "type">;

/** The run's server tools by the name their `server_tool_use` blocks carry. */
export function serverToolsOf(offered: readonly OfferedTool[]): ReadonlyMap<string, OfferedTool> {
  return new Map(offered.flatMap((r) => (r.tool.server ? [[r.tool.server.apiName, r] as const] : [])));
}

/**
 * The calls the API ran on its side within a response: each `server_tool_use` block with the
 * result block that answers it (`web_search_tool_result`, …), described by the tool that offered it
 * (named as the lists name it, `WebSearch`). A call the run did not offer keeps the API's name.
 */
export function serverCalls(
  content: readonly ContentBlockParam[],
  tools: ReadonlyMap<string, OfferedTool>,
): ServerCall[] {
  const results = new Map<string, unknown>();
  for (const b of content) {
    const r = b as { type: string; tool_use_id?: unknown; content?: unknown };
    if (r.type !== "tool_result" && r.type.endsWith("_tool_result") && typeof r.tool_use_id === "string")
      results.set(r.tool_use_id, r.content);
  }
  return content.flatMap((b) => {
    if (b.type !== "server_tool_use") return [];
    const tool = tools.get(b.name);
    const name = tool?.tool.name ?? b.name;
    if (!results.has(b.id))
      return [{ id: b.id, name, input: b.input, isError: false, content: "no result in this response" }];
    const said = tool?.tool.server?.describe(results.get(b.id)) ?? { text: "done", isError: false };
    return [{ id: b.id, name, input: b.input, isError: said.isError, content: said.text }];
  });
}
