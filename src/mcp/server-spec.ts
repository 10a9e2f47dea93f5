import type { McpServerConfig, SourcePos } from "../definitions/types.js";

/** One MCP server a run may reach: its name in tool names, its definition, and where it was written. */
export interface McpServerSpec {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly origin: SourcePos;
  /** `project` (`.mcp.json`, agent.md, code), or `agent:NAME` for a subagent's inline server. */
  readonly scope: string;
  /** The plugin that defines it, if one does. */
  readonly plugin?: string;
}

/** `mcp__github__` */
export const serverPrefix = (server: string) => `mcp__${server}__`;

/** The name a tool of a server has in lists and requests: `mcp__github__get_issue`. */
export function mcpToolName(server: string, tool: string): string {
  const part = tool.replace(/[^A-Za-z0-9_-]/g, "_");
  return `${serverPrefix(server)}${part === "" ? "tool" : part}`;
}

/** A connection is shared by every run that reaches the same definition under the same name. */
export const serverKey = (s: McpServerSpec) => `${s.name}\0${JSON.stringify(s.config)}`;
