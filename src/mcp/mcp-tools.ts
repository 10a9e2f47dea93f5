import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { defineForeignTool } from "../tools/registry.js";
import type { ImageBlock, TextBlock, Tool, ToolContext, ToolResult } from "../tools/types.js";
import type { McpConnection } from "./mcp-connection.js";
import { mcpToolName } from "./server-spec.js";

const MAX_DESCRIPTION = 4096;
const MAX_TEXT = 100_000;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The model API's limit for one image (Read refuses larger files). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images of one result, in all: several of the largest still fit in a request. */
const MAX_IMAGES_BYTES = 20 * 1024 * 1024;

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
        const meta = traceMeta(ctx.env);
        if (meta && ctx.callId)
          ctx.report?.({
            type: "mcp_call",
            id: ctx.callId,
            server: connection.spec.name,
            transport: connection.spec.config.type,
            method: "tools/call",
            tool: t.name,
          });
        const outcome = await connection.callTool(t.name, { ...input }, ctx.signal, meta);
        return outcome.ok ? toToolResult(outcome.result) : { content: outcome.message, isError: true };
      },
    });
  });
}

/**
 * The W3C trace context of a call (its span's `TRACEPARENT`, and a `TRACESTATE` it goes with), as
 * the OpenTelemetry MCP conventions put it in a request's `params._meta`; undefined: untraced.
 */
function traceMeta(env: ToolContext["env"]): Record<string, string> | undefined {
  const traceparent = env?.TRACEPARENT;
  if (!traceparent) return undefined;
  return { traceparent, ...(env?.TRACESTATE && { tracestate: env.TRACESTATE }) };
}

function describe(t: McpTool, server: string): string {
  const text = (t.description ?? "").trim() || `${t.title ?? t.name} (a tool of the MCP server '${server}')`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

/**
 * An MCP result as a tool result, holding nothing the model API would refuse: text and images kept,
 * other blocks described; an image over the API's size (as Read refuses) is left out, and text past
 * `MAX_TEXT` characters in all is cut, each said where it was.
 */
export function toToolResult(r: CallToolResult): ToolResult {
  const blocks: (TextBlock | ImageBlock)[] = [];
  let imageBytes = 0;
  for (const b of r.content ?? []) {
    if (b.type === "image" && IMAGE_TYPES.has(b.mimeType)) {
      const bytes = Math.floor((b.data.length * 3) / 4);
      const over = bytes > MAX_IMAGE_BYTES ? "images of at most 5 MB" : undefined;
      const tooMany =
        imageBytes + bytes > MAX_IMAGES_BYTES ? "at most 20 MB of images in one result" : undefined;
      if (over ?? tooMany) {
        blocks.push(
          textBlock(
            `[an ${b.mimeType} image of ${mb(bytes)} was left out: the model API takes ${over ?? tooMany}]`,
          ),
        );
        continue;
      }
      imageBytes += bytes;
      blocks.push({
        type: "image",
        source: {
          type: "base64",
          media_type: b.mimeType as ImageBlock["source"]["media_type"],
          data: b.data,
        },
      });
    } else blocks.push(textBlock(textOf(b)));
  }
  if (blocks.length === 0 && r.structuredContent !== undefined)
    blocks.push(textBlock(JSON.stringify(r.structuredContent)));
  const isError = r.isError === true;
  const cut = cutter();
  if (blocks.every((b) => b.type === "text"))
    return { content: cut(blocks.map((b) => b.text).join("\n")), isError };
  return { content: blocks.map((b) => (b.type === "text" ? textBlock(cut(b.text)) : b)), isError };
}

type ContentBlock = NonNullable<CallToolResult["content"]>[number];

/** A block other than a kept image, as text. */
function textOf(b: ContentBlock): string {
  if (b.type === "text") return b.text;
  if (b.type === "resource")
    return "text" in b.resource && typeof b.resource.text === "string"
      ? b.resource.text
      : `[binary resource ${b.resource.uri}]`;
  if (b.type === "resource_link") return `[resource ${b.uri}]`;
  if (b.type === "image")
    return `[an ${b.mimeType} image was left out: the model API takes PNG, JPEG, GIF and WebP]`;
  return `[${b.type} content omitted]`;
}

const textBlock = (text: string): TextBlock => ({ type: "text", text });
const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Cuts texts so that together they keep at most `MAX_TEXT` characters, saying how much there was. */
function cutter(): (text: string) => string {
  let left = MAX_TEXT;
  return (text) => {
    if (text.length <= left) {
      left -= text.length;
      return text;
    }
    const kept = text.slice(0, left);
    left = 0;
    return `${kept}\n[output cut at ${kept.length.toLocaleString("en")} characters of ${text.length.toLocaleString("en")}]`;
  };
}
