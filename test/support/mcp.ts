import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

/** The test MCP server's source: `node stdio-server.mjs KIND [MARK_FILE]` (see mcp/servers.mjs). */
export const STDIO_SERVER_SOURCE = path.join(REPO_ROOT, "test/support/mcp/stdio-server.mjs");
/** The same server bundled into one file by the test setup (test/support/global-setup.ts). */
export const STDIO_SERVER = path.join(REPO_ROOT, "node_modules/.cache/agentmd-test/stdio-server.mjs");

/** A `.mcp.json` server entry that runs a test server of `kind` over stdio (see mcp/servers.mjs). */
export function stdioServer(kind: string, mark?: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [STDIO_SERVER, kind, ...(mark ? [mark] : [])] };
}

/** `.mcp.json` text for these servers. */
export const mcpJson = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers }, null, 2);

/** How many times a server that marks `file` was started (one pid a line). */
export function startsOf(file: string): number {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0;
}
