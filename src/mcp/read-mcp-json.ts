import path from "node:path";
import { DiagnosticSink } from "../definitions/diagnostics.js";
import { type JsonRead, parseJsonText, readJsonFile } from "../definitions/json-file.js";
import { checkServerConfig, serverNamed, unknownServerKeys } from "../definitions/mcp-servers.js";
import { MCP_JSON } from "../definitions/project-inputs.js";
import type { Diagnostic } from "../definitions/types.js";
import type { McpServerSpec } from "./server-spec.js";

export { MCP_JSON } from "../definitions/project-inputs.js";

export interface McpJson {
  readonly servers: readonly McpServerSpec[];
  readonly diagnostics: readonly Diagnostic[];
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Reads the project's `.mcp.json` (Claude Code's format: `{ "mcpServers": { name: definition } }`).
 * A missing file is no servers; a file that is not JSON, or a server that is not a usable
 * definition, is an error diagnostic at its line and column, and the other servers still load.
 * Contract: never throws.
 */
export function readMcpJson(projectDir: string): McpJson {
  const file = path.join(projectDir, MCP_JSON);
  const read = readJsonFile(file);
  return read.kind === "missing" ? { servers: [], diagnostics: [] } : mcpJsonOf(file, read);
}

/** `.mcp.json` from its text (see `readMcpJson`). Pure. */
export function parseMcpJson(file: string, text: string): McpJson {
  return mcpJsonOf(file, parseJsonText(text));
}

function mcpJsonOf(file: string, read: Exclude<JsonRead, { kind: "missing" }>): McpJson {
  const sink = new DiagnosticSink(file, undefined);
  if (read.kind === "bad") {
    sink.add("error", "mcp-json", `${MCP_JSON} ${read.message}`, read.line, read.column);
    return { servers: [], diagnostics: sink.items };
  }
  const { value, locate } = read.json;
  const servers: McpServerSpec[] = [];
  const map = isRecord(value) ? value.mcpServers : undefined;
  if (!isRecord(map)) {
    if (!(isRecord(value) && map === undefined))
      sink.add("error", "mcp-json", `${MCP_JSON} must hold { "mcpServers": { "name": { … } } }`, 1, 1);
    return { servers, diagnostics: sink.items };
  }
  for (const raw of Object.keys(map)) {
    const at = locate(["mcpServers", raw]);
    const name = serverNamed(raw, at, sink);
    if (name === undefined) continue;
    const checked = checkServerConfig(map[raw]);
    if (!checked.ok) {
      const pos = locate(["mcpServers", raw, ...checked.path]);
      sink.add("error", "mcp-server", `MCP server '${raw}': ${checked.message}`, pos.line, pos.column);
      continue;
    }
    for (const key of unknownServerKeys(map[raw])) {
      const pos = locate(["mcpServers", raw, key]);
      sink.add(
        "info",
        "mcp-server-key",
        `MCP server '${raw}': '${key}' is not read by agentmd`,
        pos.line,
        pos.column,
      );
    }
    servers.push({ name, config: checked.config, origin: sink.pos(at.line, at.column), scope: "project" });
  }
  return { servers, diagnostics: sink.items };
}
