import { checkServerConfig } from "../definitions/mcp-servers.js";
import type {
  Definition,
  Diagnostic,
  McpServerConfigInput,
  McpServerRef,
  Plugin,
} from "../definitions/types.js";
import { readMcpJson } from "./read-mcp-json.js";
import type { McpServerSpec } from "./server-spec.js";

/** The MCP servers of a project: those every run may reach, and each subagent's own. */
export interface ProjectServers {
  /** `.mcp.json`'s, then agent.md's inline ones, then those given in code (a later name wins). */
  readonly project: readonly McpServerSpec[];
  /** A subagent's inline servers: they live only for its runs and its children's. */
  inlineOf(def: Definition): readonly McpServerSpec[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface ProjectServerOptions {
  /** Read `.mcp.json` (default true). */
  readonly mcpJson?: boolean;
  /** `.mcp.json` servers the settings let start: only `enabled` (when given), never `disabled`. */
  readonly mcpJsonServers?: { readonly enabled?: readonly string[]; readonly disabled?: readonly string[] };
  /** Servers given in code, as `.mcp.json` writes them. */
  readonly servers?: Readonly<Record<string, McpServerConfigInput>>;
  /** Enabled plugins: their servers join the project's, named `plugin_<plugin>_<server>`. */
  readonly plugins?: readonly Plugin[];
}

/**
 * Collects the servers of a loaded project. A name in `mcpServers` that no server of `.mcp.json`
 * (or agent.md) defines is a warning: the entry gives nothing. Contract: never throws.
 */
export function projectServers(
  projectDir: string,
  definitions: readonly Definition[],
  options: ProjectServerOptions = {},
): ProjectServers {
  const read = options.mcpJson === false ? { servers: [], diagnostics: [] } : readMcpJson(projectDir);
  const only = options.mcpJsonServers;
  const json = {
    ...read,
    servers: read.servers.filter(
      (s) => (!only?.enabled || only.enabled.includes(s.name)) && !only?.disabled?.includes(s.name),
    ),
  };
  const diagnostics: Diagnostic[] = [...json.diagnostics];
  const main = definitions.find((d) => d.surface === "main");
  const fromPlugins = (options.plugins ?? []).flatMap((p) =>
    p.servers.map((s) => ({ ...s, scope: "project", plugin: p.name })),
  );
  const project: McpServerSpec[] = [...json.servers, ...fromPlugins, ...inline(main, "project")];
  for (const [name, value] of Object.entries(options.servers ?? {})) {
    const checked = checkServerConfig(value);
    if (!checked.ok) {
      diagnostics.push({
        file: "<code>",
        line: 1,
        column: 1,
        severity: "error",
        code: "mcp-server",
        message: `MCP server '${name}' given in code: ${checked.message}`,
      });
      continue;
    }
    project.push({
      name,
      config: checked.config,
      origin: { file: "<code>", line: 1, column: 1 },
      scope: "project",
    });
  }
  const defined = new Set(project.map((s) => s.name));
  for (const d of definitions) {
    for (const ref of refsOf(d)) {
      if (ref.kind === "name" && !defined.has(ref.name))
        diagnostics.push({
          ...ref.at,
          severity: "warning",
          code: "mcp-server-unknown",
          surface: d.surface,
          message: `MCP server '${ref.name}' is not defined in .mcp.json or agent.md; this entry gives nothing`,
        });
    }
  }
  const cache = new WeakMap<Definition, McpServerSpec[]>();
  return {
    project,
    inlineOf(def) {
      let specs = cache.get(def);
      if (!specs) {
        specs = def.surface === "agent" ? inline(def, `agent:${def.name}`) : [];
        cache.set(def, specs);
      }
      return specs;
    },
    diagnostics,
  };
}

function refsOf(def: Definition): readonly McpServerRef[] {
  return def.surface === "main" || def.surface === "agent" ? (def.mcpServers ?? []) : [];
}

function inline(def: Definition | undefined, scope: string): McpServerSpec[] {
  if (!def) return [];
  return refsOf(def).flatMap((r) =>
    r.kind === "inline" ? [{ name: r.name, config: r.config, origin: r.at, scope }] : [],
  );
}
