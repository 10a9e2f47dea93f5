import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { toToolResult } from "../../mcp/mcp-tools.js";
import { mcpToolName } from "../../mcp/server-spec.js";
import { defineForeignTool } from "../../tools/registry.js";
import type { Tool } from "../../tools/types.js";
import type { SdkChannel } from "./sdk-channel.js";

/**
 * The program's in-process MCP servers (`createSdkMcpServer`) as tools named
 * `mcp__<server>__<tool>`: listed from the manifests `initialize` carries (or asked for over
 * `mcp_message` when it carries none), each call relayed as an `mcp_message` `tools/call`. They are
 * tools like any other: the lists judge every call before it is relayed.
 */
export interface SdkMcpServer {
  readonly name: string;
  readonly status: "connected" | "failed";
  readonly source: "sdk";
  readonly error?: string;
}

export async function sdkMcpTools(
  names: readonly string[],
  manifests: Readonly<Record<string, { toolsListResult?: { tools?: McpTool[] } }>> | undefined,
  channel: SdkChannel,
): Promise<{ tools: Tool[]; servers: SdkMcpServer[] }> {
  const tools: Tool[] = [];
  const servers: SdkMcpServer[] = [];
  for (const server of names) {
    const relay = relayTo(server, channel);
    try {
      const listed = manifests?.[server]?.toolsListResult?.tools ?? (await listTools(relay));
      tools.push(...listed.map((t) => relayedTool(server, t, relay)));
      servers.push({ name: server, status: "connected", source: "sdk" });
    } catch (e) {
      servers.push({ name: server, status: "failed", source: "sdk", error: (e as Error).message });
    }
  }
  return { tools, servers };
}

type Relay = (method: string, params: object, signal?: AbortSignal) => Promise<unknown>;

function relayTo(server: string, channel: SdkChannel): Relay {
  let id = 0;
  return async (method, params, signal) => {
    const message = { jsonrpc: "2.0", id: id++, method, params };
    const r = await channel.request({ subtype: "mcp_message", server_name: server, message }, signal);
    const reply = r.mcp_response as { result?: unknown; error?: { message?: string } } | undefined;
    if (!reply) throw new Error(`the SDK's server '${server}' sent no answer`);
    if (reply.error) throw new Error(reply.error.message ?? JSON.stringify(reply.error));
    return reply.result;
  };
}

async function listTools(relay: Relay): Promise<McpTool[]> {
  await relay("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "agentmd", version: "1" },
  });
  const listed = (await relay("tools/list", {})) as { tools?: McpTool[] } | undefined;
  return listed?.tools ?? [];
}

function relayedTool(server: string, t: McpTool, relay: Relay): Tool {
  return defineForeignTool({
    name: mcpToolName(server, t.name),
    description: (t.description ?? "").trim() || `${t.name} (a tool of the SDK's MCP server '${server}')`,
    inputSchema: t.inputSchema,
    concurrency: t.annotations?.readOnlyHint === true ? "concurrent-safe" : "sequential",
    interrupt: "cooperative",
    execute: async (input, ctx) => {
      try {
        const result = await relay(
          "tools/call",
          {
            name: t.name,
            arguments: { ...input },
            ...(ctx.callId && { _meta: { "claudecode/toolUseId": ctx.callId } }),
          },
          ctx.signal,
        );
        return toToolResult((result ?? {}) as CallToolResult);
      } catch (e) {
        return { content: `The SDK's MCP tool ${t.name} failed: ${(e as Error).message}`, isError: true };
      }
    },
  });
}
