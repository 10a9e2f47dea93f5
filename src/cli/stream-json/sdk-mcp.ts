import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_START_TIMEOUT_MS } from "../../mcp/mcp-connection.js";
import { toToolResult } from "../../mcp/mcp-tools.js";
import { mcpToolName } from "../../mcp/server-spec.js";
import { DEFAULT_MCP_TIMEOUT_MS } from "../../shared/defaults.js";
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

/**
 * How long the program's servers may take, in milliseconds. A call: the server's own `timeout`
 * (`createSdkMcpServer({ timeout })`, sent in `sdkMcpServerConfigs`; under 1,000 is ignored, as
 * Claude Code does), else `MCP_TOOL_TIMEOUT`; agent.md's `mcpTimeout` bounds it too (the smaller
 * wins); with none of these, agentmd's 60 s. The handshake, when `initialize` brings no manifest:
 * `MCP_TIMEOUT`, else 30 s.
 */
export interface SdkMcpBounds {
  readonly configs?: Readonly<Record<string, { readonly timeout?: unknown } | undefined>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** agent.md's `mcpTimeout` in milliseconds, known once the project is open. */
  readonly agentMs: () => number | undefined;
}

export async function sdkMcpTools(
  names: readonly string[],
  manifests: Readonly<Record<string, { toolsListResult?: { tools?: McpTool[] } }>> | undefined,
  channel: SdkChannel,
  bounds: SdkMcpBounds,
): Promise<{ tools: Tool[]; servers: SdkMcpServer[] }> {
  const tools: Tool[] = [];
  const servers: SdkMcpServer[] = [];
  for (const server of names) {
    const relay = relayTo(server, channel);
    const callMs = () => callTimeoutMs(server, bounds);
    try {
      const listed =
        manifests?.[server]?.toolsListResult?.tools ?? (await listTools(relay, startTimeoutMs(bounds.env)));
      tools.push(...listed.map((t) => relayedTool(server, t, relay, callMs)));
      servers.push({ name: server, status: "connected", source: "sdk" });
    } catch (e) {
      servers.push({ name: server, status: "failed", source: "sdk", error: (e as Error).message });
    }
  }
  return { tools, servers };
}

/** One JSON-RPC message to the server; `sent.id` gets the request's id (to cancel it by). */
type Relay = (
  method: string,
  params: object,
  signal?: AbortSignal,
  sent?: { id?: number },
) => Promise<unknown>;

function relayTo(server: string, channel: SdkChannel): Relay {
  let id = 0;
  return async (method, params, signal, sent) => {
    // A notification (`notifications/cancelled`) has no id; the SDK answers it all the same.
    const message = method.startsWith("notifications/")
      ? { jsonrpc: "2.0", method, params }
      : { jsonrpc: "2.0", id: id++, method, params };
    if (sent && "id" in message) sent.id = message.id;
    const r = await channel.request({ subtype: "mcp_message", server_name: server, message }, signal);
    const reply = r.mcp_response as { result?: unknown; error?: { message?: string } } | undefined;
    if (!reply) throw new Error(`the SDK's server '${server}' sent no answer`);
    if (reply.error) throw new Error(reply.error.message ?? JSON.stringify(reply.error));
    return reply.result;
  };
}

export function callTimeoutMs(server: string, bounds: SdkMcpBounds): number {
  const own = positive(bounds.configs?.[server]?.timeout);
  const sdk = own !== undefined && own >= 1000 ? own : positive(bounds.env.MCP_TOOL_TIMEOUT);
  const given = [sdk, bounds.agentMs()].filter((ms): ms is number => ms !== undefined);
  return given.length > 0 ? Math.min(...given) : DEFAULT_MCP_TIMEOUT_MS;
}

function startTimeoutMs(env: SdkMcpBounds["env"]): number {
  return positive(env.MCP_TIMEOUT) ?? DEFAULT_START_TIMEOUT_MS;
}

function positive(x: unknown): number | undefined {
  const n = typeof x === "string" && x.trim() !== "" ? Number(x) : x;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

async function listTools(relay: Relay, ms: number): Promise<McpTool[]> {
  const signal = AbortSignal.timeout(ms);
  const within = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      if (signal.aborted) throw new Error(`it did not answer within ${ms / 1000} s`);
      throw e;
    }
  };
  await within(
    relay(
      "initialize",
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agentmd", version: "1" } },
      signal,
    ),
  );
  const listed = (await within(relay("tools/list", {}, signal))) as { tools?: McpTool[] } | undefined;
  return listed?.tools ?? [];
}

/**
 * A tool of the program's server; each call bounded by `callMs`: past it the call is cancelled on
 * the pipe (and the server told, `notifications/cancelled`), and the model gets an error result
 * saying so; the run goes on.
 */
function relayedTool(server: string, t: McpTool, relay: Relay, callMs: () => number): Tool {
  return defineForeignTool({
    name: mcpToolName(server, t.name),
    description: (t.description ?? "").trim() || `${t.name} (a tool of the SDK's MCP server '${server}')`,
    inputSchema: t.inputSchema,
    concurrency: t.annotations?.readOnlyHint === true ? "concurrent-safe" : "sequential",
    interrupt: "cooperative",
    execute: async (input, ctx) => {
      const ms = callMs();
      const timeout = AbortSignal.timeout(ms);
      const call: { id?: number } = {};
      try {
        const result = await relay(
          "tools/call",
          {
            name: t.name,
            arguments: { ...input },
            ...(ctx.callId && { _meta: { "claudecode/toolUseId": ctx.callId } }),
          },
          AbortSignal.any([ctx.signal, timeout]),
          call,
        );
        return toToolResult((result ?? {}) as CallToolResult);
      } catch (e) {
        if (!timeout.aborted || ctx.signal.aborted)
          return { content: `The SDK's MCP tool ${t.name} failed: ${(e as Error).message}`, isError: true };
        const reason = `no answer within ${ms / 1000} s`;
        relay("notifications/cancelled", { requestId: call.id, reason }).catch(() => {});
        return {
          content: `The SDK's MCP tool ${t.name} (server '${server}') did not answer within ${ms / 1000} s, so the call was cancelled`,
          isError: true,
        };
      }
    },
  });
}
