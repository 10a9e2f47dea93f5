import type { Resource } from "@modelcontextprotocol/sdk/types.js";
import { offered } from "../permissions/permission-list.js";
import type { PermissionList } from "../permissions/types.js";
import { defineForeignTool } from "../tools/registry.js";
import type { Tool, ToolResult } from "../tools/types.js";
import type { McpConnection } from "./mcp-connection.js";
import { toToolResult } from "./mcp-tools.js";
import { type McpServerSpec, serverPrefix } from "./server-spec.js";

export const LIST_RESOURCES = "ListMcpResourcesTool";
export const READ_RESOURCE = "ReadMcpResourceTool";
/** The most resources one listing returns (pages are followed up to it). */
const MAX_LISTED = 1000;

/**
 * The servers whose resources a list may read: those it reaches whole (`mcp__server`,
 * `mcp__server__*`, `*`), not one that it allows a tool or two of. A name no tool has stands for
 * "any tool of the server": only a rule that covers the whole server covers it, and only a deny
 * that removes the whole server removes it. A hop's list is its caller's ∩ its own, so a hop reads
 * no server its caller could not. Pure.
 */
export function resourceServers<S extends { readonly name: string }>(
  servers: readonly S[],
  list: PermissionList,
): S[] {
  return servers.filter((s) => offered(list, [`${serverPrefix(s.name)}~resources`]).length > 0);
}

/** The resource tools over these servers (the ones the run's list may read: see `resourceServers`). */
export function resourceTools(
  servers: readonly McpServerSpec[],
  connection: (spec: McpServerSpec) => McpConnection,
): Tool[] {
  const byName = new Map(servers.map((s) => [s.name, s]));
  const names = [...byName.keys()].sort();
  const unknown = (server: string): ToolResult => ({
    content: `no MCP server named '${server}' is readable in this run (readable: ${names.join(", ") || "none"})`,
    isError: true,
  });
  return [
    defineForeignTool({
      name: LIST_RESOURCES,
      description: `Lists the resources of the MCP servers this run may read (${names.join(", ")}), or of one of them: each resource's server, uri, name, MIME type and description. Read one with ${READ_RESOURCE}.`,
      inputSchema: {
        type: "object",
        properties: { server: { type: "string", description: "Only this server's resources" } },
      },
      concurrency: "concurrent-safe",
      interrupt: "cooperative",
      execute: async (input, ctx) => {
        const server = typeof input.server === "string" && input.server !== "" ? input.server : undefined;
        const spec = server !== undefined ? byName.get(server) : undefined;
        if (server !== undefined && !spec) return unknown(server);
        const asked = spec ? [spec] : [...byName.values()];
        const found = await Promise.all(asked.map((s) => listOf(connection(s), ctx.signal)));
        const failed = found.flatMap((f) => (f.ok ? [] : [f.message]));
        const listed = found.flatMap((f) => (f.ok ? f.resources : []));
        if (failed.length > 0 && listed.length === 0) return { content: failed.join("\n"), isError: true };
        return {
          content: JSON.stringify(listed, null, 2) + failed.map((m) => `\n${m}`).join(""),
          isError: false,
        };
      },
    }),
    defineForeignTool({
      name: READ_RESOURCE,
      description: "Reads one resource of an MCP server by its uri (as ListMcpResourcesTool lists them).",
      inputSchema: {
        type: "object",
        properties: {
          server: { type: "string", description: "The MCP server's name" },
          uri: { type: "string", description: "The resource's uri" },
        },
        required: ["server", "uri"],
      },
      concurrency: "concurrent-safe",
      interrupt: "cooperative",
      execute: async (input, ctx) => {
        const server = String(input.server ?? "");
        const spec = byName.get(server);
        if (!spec) return unknown(server);
        return readResource(connection(spec), String(input.uri ?? ""), ctx.signal);
      },
    }),
  ];
}

/** A server's resources (pages followed), each said with its server. Never rejects. */
export async function listOf(
  c: McpConnection,
  signal: AbortSignal,
): Promise<{ ok: true; resources: (Resource & { server: string })[] } | { ok: false; message: string }> {
  const resources: (Resource & { server: string })[] = [];
  let cursor: string | undefined;
  do {
    const page = await c.listResources(signal, cursor);
    if (!page.ok) return page;
    for (const r of page.result.resources) resources.push({ ...r, server: c.spec.name });
    cursor = page.result.nextCursor;
  } while (cursor && resources.length < MAX_LISTED);
  return { ok: true, resources };
}

/** A resource's contents as a tool result: texts kept (cut as a tool's are), binaries described. */
export async function readResource(c: McpConnection, uri: string, signal: AbortSignal): Promise<ToolResult> {
  if (uri === "") return { content: "uri is required", isError: true };
  const got = await c.readResource(uri, signal);
  if (!got.ok) return { content: got.message, isError: true };
  return toToolResult({ content: got.result.contents.map((resource) => ({ type: "resource", resource })) });
}
