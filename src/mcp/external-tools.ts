import type { Definition, MainAgentDefinition, McpServerConfigInput, Plugin } from "../definitions/types.js";
import { DEFAULT_MCP_TIMEOUT_MS } from "../shared/defaults.js";
import { parseToolSearch, type ToolSearchSetting } from "../tools/search/deferral.js";
import { createMcpHub, type McpHub } from "./mcp-hub.js";
import { type ProjectServers, projectServers } from "./project-servers.js";

/** Tools that come from outside the runner: its MCP servers, and when to defer their definitions. */
export interface ExternalTools {
  readonly hub: McpHub;
  readonly servers: ProjectServers;
  readonly toolSearch: ToolSearchSetting;
  /** Milliseconds a server may take to start or to answer one call. */
  readonly timeoutMs: number;
}

/** The runner options these settings come from (a part of `RunnerOptions`). */
export interface ExternalToolOptions {
  readonly mcp?: {
    /** Servers beside `.mcp.json`'s, as it writes them (a same name wins over it). */
    readonly servers?: Readonly<Record<string, McpServerConfigInput>>;
    /** Read the project's `.mcp.json` (default true, when a project folder is given). */
    readonly mcpJson?: boolean;
    readonly timeoutMs?: number;
    /** Milliseconds a server may take to start and list its tools (default 30,000). */
    readonly startTimeoutMs?: number;
  };
  readonly tools?: { readonly toolSearch?: "auto" | `auto:${number}` | boolean };
}

/**
 * Each setting from the code's options, else agent.md, else the default; servers from `.mcp.json`,
 * agent.md, the subagents and the code. Starts nothing: servers start when a run needs them.
 */
export function createExternalTools(input: {
  readonly options: ExternalToolOptions;
  readonly main: MainAgentDefinition | undefined;
  readonly definitions: readonly Definition[];
  /** Undefined when the runner has no project folder: no `.mcp.json` is read. */
  readonly projectDir: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The home folder of the environment agentmd was started with: where sign-ins are kept. */
  readonly home?: string;
  /** The settings' `enabledMcpjsonServers` and `disabledMcpjsonServers`. */
  readonly mcpJsonServers?: { readonly enabled?: readonly string[]; readonly disabled?: readonly string[] };
  /** The enabled plugins whose servers start (`plugin_<plugin>_<server>`). */
  readonly plugins?: readonly Plugin[];
}): ExternalTools {
  const { options, main } = input;
  const timeoutMs =
    options.mcp?.timeoutMs ??
    (main?.mcpTimeout !== undefined ? main.mcpTimeout * 1000 : DEFAULT_MCP_TIMEOUT_MS);
  const servers = projectServers(input.projectDir ?? input.cwd, input.definitions, {
    mcpJson: input.projectDir !== undefined && options.mcp?.mcpJson !== false,
    ...(options.mcp?.servers && { servers: options.mcp.servers }),
    ...(input.mcpJsonServers && { mcpJsonServers: input.mcpJsonServers }),
    ...(input.plugins && { plugins: input.plugins }),
  });
  return {
    hub: createMcpHub({
      timeoutMs,
      ...(options.mcp?.startTimeoutMs !== undefined && { startTimeoutMs: options.mcp.startTimeoutMs }),
      cwd: input.projectDir ?? input.cwd,
      env: input.env,
      ...(input.home !== undefined && { home: input.home }),
    }),
    servers,
    toolSearch: parseToolSearch(options.tools?.toolSearch ?? main?.toolSearch),
    timeoutMs,
  };
}
