import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { defineForeignTool } from "../tools/registry.js";
import type { ImageBlock, TextBlock, Tool, ToolResult } from "../tools/types.js";
import type { McpConnection } from "./mcp-connection.js";
import { mcpToolName } from "./server-spec.js";

const MAX_DESCRIPTION = 4096;
const MAX_TEXT = 100_000;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * A server's tools as agentmd tools named `mcp__<server>__<tool>`. Their schemas are the server's,
 * so they go through the sanitiser (keys the API rejects are renamed, and the model's input mapped
 * back before the call); a tool annotated `readOnlyHint` may run beside other concurrent-safe calls.
 */
export function mcpTools(connection: McpConnection, listed: readonly McpTool[]): Tool[] {
  const taken = new Set<string>();
  return listed.map((t) => {
    let name = mcpToolName(connection.spec.name, t.name);
    for (let n = 2; taken.has(name); n++) name = `${mcpToolName(connection.spec.name, t.name)}_${n}`;
    taken.add(name);
    return defineForeignTool({
      name,
      description: describe(t, connection.spec.name),
      inputSchema: t.inputSchema,
      concurrency: t.annotations?.readOnlyHint === true ? "concurrent-safe" : "sequential",
      interrupt: "cooperative",
      execute: async (input, ctx) => {
        const outcome = await connection.callTool(t.name, { ...input }, ctx.signal);
        return outcome.ok ? toToolResult(outcome.result) : { content: outcome.message, isError: true };
      },
    });
  });
}

function describe(t: McpTool, server: string): string {
  const text = (t.description ?? "").trim() || `${t.title ?? t.name} (a tool of the MCP server '${server}')`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

/** An MCP result as a tool result: text and images kept, other blocks described, long text cut. */
export function toToolResult(r: CallToolResult): ToolResult {
  const blocks: (TextBlock | ImageBlock)[] = [];
  for (const b of r.content ?? []) {
    if (b.type === "text") blocks.push({ type: "text", text: b.text });
    else if (b.type === "image" && IMAGE_TYPES.has(b.mimeType))
      blocks.push({
        type: "image",
        source: {
          type: "base64",
          media_type: b.mimeType as ImageBlock["source"]["media_type"],
          data: b.data,
        },
      });
    else if (b.type === "resource")
      blocks.push({
        type: "text",
        text:
          "text" in b.resource && typeof b.resource.text === "string"
            ? b.resource.text
            : `[binary resource ${b.resource.uri}]`,
      });
    else if (b.type === "resource_link") blocks.push({ type: "text", text: `[resource ${b.uri}]` });
    else blocks.push({ type: "text", text: `[${b.type} content omitted]` });
  }
  if (blocks.length === 0 && r.structuredContent !== undefined)
    blocks.push({ type: "text", text: JSON.stringify(r.structuredContent) });
  const isError = r.isError === true;
  if (blocks.every((b) => b.type === "text")) {
    const text = blocks.map((b) => (b as TextBlock).text).join("\n");
    return { content: cut(text), isError };
  }
  return { content: blocks.map((b) => (b.type === "text" ? { ...b, text: cut(b.text) } : b)), isError };
}

const cut = (text: string) =>
  text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT)}\n[output cut at ${MAX_TEXT.toLocaleString("en")} characters]`
    : text;
