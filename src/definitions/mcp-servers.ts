import { ownSecretIn } from "../shared/own-secrets.js";
import type { DiagnosticSink } from "./diagnostics.js";
import type { McpServerConfig, McpServerRef, McpTransport } from "./types.js";
import type { Field } from "./yaml-fields.js";

/**
 * MCP server definitions, as `.mcp.json` writes them (Claude Code's format) and as `mcpServers` in
 * agent.md and subagents writes them. Values are validated here; `${VAR}` is expanded only when a
 * server starts, with the runner's environment. The types are those of types.ts.
 */

export type ConfigCheck =
  | { readonly ok: true; readonly config: McpServerConfig }
  | { readonly ok: false; readonly path: readonly (string | number)[]; readonly message: string };

const KNOWN_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "defer"]);
const TYPES: Readonly<Record<string, McpTransport>> = {
  stdio: "stdio",
  http: "http",
  "streamable-http": "http",
  streamableHttp: "http",
  sse: "sse",
};

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Checks one server's definition; the first problem found, with where it is. Unknown keys are not
 * problems (other tools add their own), only keys agentmd reads are checked. Pure.
 */
export function checkServerConfig(value: unknown): ConfigCheck {
  const bad = (path: (string | number)[], message: string): ConfigCheck => ({ ok: false, path, message });
  if (!isRecord(value))
    return bad([], "a server must be a map of keys (command, args, env, or type and url)");
  const rawType = value.type;
  let type: McpTransport | undefined;
  if (rawType !== undefined) {
    type = typeof rawType === "string" && Object.hasOwn(TYPES, rawType) ? TYPES[rawType] : undefined;
    if (!type) return bad(["type"], `'type' must be stdio, http or sse, got ${JSON.stringify(rawType)}`);
  } else type = typeof value.url === "string" ? "http" : "stdio";
  for (const key of ["command", "cwd", "url"] as const) {
    if (value[key] !== undefined && typeof value[key] !== "string")
      return bad([key], `'${key}' must be text, got ${JSON.stringify(value[key])}`);
  }
  if (value.args !== undefined) {
    if (!Array.isArray(value.args)) return bad(["args"], "'args' must be a list of strings");
    const i = value.args.findIndex((a) => typeof a !== "string");
    if (i !== -1) return bad(["args", i], `'args' item ${i + 1} must be text`);
  }
  for (const key of ["env", "headers"] as const) {
    const map = value[key];
    if (map === undefined) continue;
    if (!isRecord(map)) return bad([key], `'${key}' must be a map of names to text`);
    const wrong = Object.keys(map).find((k) => typeof map[k] !== "string");
    if (wrong !== undefined) return bad([key, wrong], `'${key}.${wrong}' must be text`);
  }
  const secret = secretNamed(value);
  if (secret)
    return bad(
      secret.path,
      `'${secret.path.join(".")}' names \${${secret.name}}, agentmd's own credential, which is never handed to an MCP server; give the server a key of its own`,
    );
  if (value.defer !== undefined && typeof value.defer !== "boolean")
    return bad(["defer"], "'defer' must be true or false");
  if (type === "stdio" && (typeof value.command !== "string" || value.command.trim() === ""))
    return bad([], "a stdio server needs a 'command' (or 'type': 'http' or 'sse' with a 'url')");
  if (type !== "stdio" && (typeof value.url !== "string" || !/^https?:\/\//.test(value.url)))
    return bad(["url"], `a ${type} server needs a 'url' starting with http:// or https://`);
  const config: McpServerConfig = {
    type,
    ...(typeof value.command === "string" && { command: value.command }),
    ...(Array.isArray(value.args) && { args: value.args as string[] }),
    ...(isRecord(value.env) && { env: { ...(value.env as Record<string, string>) } }),
    ...(typeof value.cwd === "string" && { cwd: value.cwd }),
    ...(typeof value.url === "string" && { url: value.url }),
    ...(isRecord(value.headers) && { headers: { ...(value.headers as Record<string, string>) } }),
    ...(typeof value.defer === "boolean" && { defer: value.defer }),
  };
  return { ok: true, config };
}

/** Where a (type-checked) definition names one of agentmd's credentials as `${VAR}`, if it does. */
function secretNamed(
  value: Record<string, unknown>,
): { path: (string | number)[]; name: string } | undefined {
  const texts: [(string | number)[], unknown][] = [
    [["command"], value.command],
    [["cwd"], value.cwd],
    [["url"], value.url],
    ...(Array.isArray(value.args)
      ? value.args.map((a, i): [(string | number)[], unknown] => [["args", i], a])
      : []),
    ...(["env", "headers"] as const).flatMap((key) => {
      const map = value[key];
      return isRecord(map)
        ? Object.entries(map).map(([k, v]): [(string | number)[], unknown] => [[key, k], v])
        : [];
    }),
  ];
  for (const [at, text] of texts) {
    const name = typeof text === "string" ? ownSecretIn(text) : undefined;
    if (name) return { path: at, name };
  }
  return undefined;
}

/** Keys of a server definition that agentmd does not read (reported as information). */
export function unknownServerKeys(value: unknown): string[] {
  return isRecord(value) ? Object.keys(value).filter((k) => !KNOWN_KEYS.has(k)) : [];
}

/**
 * A server name usable in tool names (`mcp__<name>__<tool>`): letters, digits, `_` and `-`, with no
 * `__` (which separates the server from the tool). Others are rewritten the way Claude Code does;
 * undefined when nothing usable is left.
 */
export function serverNameOf(name: string): string | undefined {
  const n = name
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .replace(/_{2,}/g, "_")
    .replace(/^_+|_+$/g, "");
  return n === "" ? undefined : n;
}

/**
 * Reads `mcpServers` of a definition: a list whose items are a name (a server of `.mcp.json`) or a
 * one-key map `name: definition`, or a map of names to definitions. Problems are reported at their
 * place; a bad entry is left out, the others are kept. Returns undefined for no usable entry.
 */
export function readMcpServersField(field: Field, sink: DiagnosticSink): McpServerRef[] | undefined {
  const refs: McpServerRef[] = [];
  const value = field.value;
  const inline = (rawName: string, def: unknown, path: (string | number)[]) => {
    const at = field.locate(path);
    const name = serverNamed(rawName, at, sink);
    if (!name) return;
    const checked = checkServerConfig(def);
    if (!checked.ok) {
      const pos = field.locate([...path, ...checked.path]);
      sink.add("error", "mcp-server", `MCP server '${rawName}': ${checked.message}`, pos.line, pos.column);
      return;
    }
    refs.push({ kind: "inline", name, config: checked.config, at: sink.pos(at.line, at.column) });
  };
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const at = field.locate([i]);
      if (typeof item === "string") {
        const name = serverNamed(item, at, sink);
        if (name) refs.push({ kind: "name", name, at: sink.pos(at.line, at.column) });
      } else if (isRecord(item) && Object.keys(item).length === 1) {
        const key = Object.keys(item)[0] as string;
        inline(key, item[key], [i, key]);
      } else {
        sink.add(
          "error",
          "mcp-server",
          "each 'mcpServers' item is a server name or 'name: {command: …}'",
          at.line,
          at.column,
        );
      }
    });
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) inline(key, value[key], [key]);
  } else if (value !== null && value !== undefined) {
    sink.add(
      "error",
      "mcp-server",
      "'mcpServers' must be a list of server names or definitions, or a map of names to definitions",
      field.valuePos.line,
      field.valuePos.column,
    );
  }
  return refs.length > 0 ? refs : undefined;
}

/** A server's name as tool names carry it; an error or a warning where it differs from `raw`. */
export function serverNamed(
  raw: string,
  at: { line: number; column: number },
  sink: DiagnosticSink,
): string | undefined {
  const name = serverNameOf(raw);
  if (name === undefined) {
    sink.add("error", "mcp-server-name", `'${raw}' cannot name an MCP server`, at.line, at.column);
  } else if (name !== raw) {
    sink.add(
      "warning",
      "mcp-server-name",
      `MCP server '${raw}' is named '${name}' in tool names (mcp__${name}__…): names hold letters, digits, '_' and '-', and no '__'`,
      at.line,
      at.column,
    );
  }
  return name;
}
