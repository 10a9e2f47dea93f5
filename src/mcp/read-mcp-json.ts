import { readFileSync } from "node:fs";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { DiagnosticSink } from "../definitions/diagnostics.js";
import { checkServerConfig, serverNameOf, unknownServerKeys } from "../definitions/mcp-servers.js";
import type { Diagnostic } from "../definitions/types.js";
import type { McpServerSpec } from "./server-spec.js";

export const MCP_JSON = ".mcp.json";

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
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { servers: [], diagnostics: [] };
    const sink = new DiagnosticSink(file, undefined);
    sink.add("error", "mcp-json", `${MCP_JSON} cannot be read: ${(e as Error).message}`);
    return { servers: [], diagnostics: sink.items };
  }
  return parseMcpJson(file, text);
}

/** `.mcp.json` from its text (see `readMcpJson`). Pure. */
export function parseMcpJson(file: string, text: string): McpJson {
  const sink = new DiagnosticSink(file, undefined);
  const lines = new LineCounter();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = jsonErrorPos(e as Error, text);
    sink.add(
      "error",
      "mcp-json",
      `${MCP_JSON} is not valid JSON: ${(e as Error).message}`,
      at.line,
      at.column,
    );
    return { servers: [], diagnostics: sink.items };
  }
  const doc = parseDocument(text, { lineCounter: lines });
  const locate = (keys: readonly (string | number)[]) => {
    const node = doc.getIn(keys, true) as { range?: [number, number] } | undefined;
    const pos = lines.linePos(node?.range?.[0] ?? 0);
    return { line: pos.line, column: pos.col };
  };
  const servers: McpServerSpec[] = [];
  const map = isRecord(value) ? value.mcpServers : undefined;
  if (!isRecord(map)) {
    if (!(isRecord(value) && map === undefined))
      sink.add("error", "mcp-json", `${MCP_JSON} must hold { "mcpServers": { "name": { … } } }`, 1, 1);
    return { servers, diagnostics: sink.items };
  }
  for (const raw of Object.keys(map)) {
    const at = locate(["mcpServers", raw]);
    const name = serverNameOf(raw);
    if (name === undefined) {
      sink.add("error", "mcp-server-name", `'${raw}' cannot name an MCP server`, at.line, at.column);
      continue;
    }
    if (name !== raw)
      sink.add(
        "warning",
        "mcp-server-name",
        `MCP server '${raw}' is named '${name}' in tool names (mcp__${name}__…): names hold letters, digits, '_' and '-', and no '__'`,
        at.line,
        at.column,
      );
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

/** Where JSON.parse stopped: Node names a position ("at position 42"), else the end of the text. */
function jsonErrorPos(e: Error, text: string) {
  const m = /position (\d+)/.exec(e.message);
  const offset = m ? Number(m[1]) : text.length;
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}
