import type { ContentBlockParam, ToolResultBlockParam } from "../model/messages.js";
import type { ToolResult } from "../tools/types.js";

// A tool call's result, as the executor words it and the model is sent it.

export function appendNote(r: ToolResult, note: string): ToolResult {
  if (typeof r.content === "string") return { ...r, content: `${r.content}\n${note}` };
  return { ...r, content: [...r.content, { type: "text", text: note }] };
}

export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function resultText(r: ToolResult): string {
  if (typeof r.content === "string") return r.content;
  return r.content.map((b) => (b.type === "text" ? b.text : `[${b.source.media_type} image]`)).join("\n");
}

export function toResultBlock(id: string, r: ToolResult): ToolResultBlockParam {
  const content: ToolResultBlockParam["content"] =
    typeof r.content === "string"
      ? r.content === ""
        ? "(no output)"
        : r.content
      : (r.content.map((b) => ({ ...b })) as Exclude<ToolResultBlockParam["content"], string | undefined>);
  return { type: "tool_result", tool_use_id: id, content, ...(r.isError && { is_error: true }) };
}

/** The result for a call that never ran (the run was aborted, or its response was cut off). */
export function notRunResult(use: { readonly id: string }, message: string): ContentBlockParam {
  return { type: "tool_result", tool_use_id: use.id, content: message, is_error: true };
}
