import { userDirOf } from "../../definitions/discover.js";
import { findProjectRoot, loadProject } from "../../definitions/index.js";
import { loadSettings, mcpJsonFilter } from "../../definitions/settings.js";
import { toolNames } from "../../definitions/tool-names.js";
import type { Definition } from "../../definitions/types.js";
import { builtinCatalog } from "../../invocation/tool-catalog.js";
import { type ProjectServerOptions, projectServers } from "../../mcp/project-servers.js";
import { type McpServerSpec, mcpToolName } from "../../mcp/server-spec.js";
import type { PermissionList } from "../../permissions/types.js";
import { trustState } from "../../trust/trust-state.js";
import { type CliIo, styleFor } from "../io.js";
import { formatDiagnostic } from "./check-command.js";

export interface StartedServers {
  /** `mcp__server__tool` of every server that started. */
  readonly names: readonly string[];
  /** One line a server: `github: 4 tools` or `broken: could not be started: …`. */
  readonly lines: readonly string[];
  /** Set when nothing started because the folder is not trusted: the sentence that says so. */
  readonly refused?: string;
}

/**
 * The servers of the project `io.cwd` is in, as `mcp` sees them: `.mcp.json`'s (as the settings
 * let them start), agent.md's and each subagent's inline ones; the definitions' problems with them
 * are written to stderr.
 */
export function projectSpecs(io: CliIo): { readonly root: string; readonly specs: McpServerSpec[] } {
  const root = findProjectRoot(io.cwd, io.env.HOME);
  const user = userDirOf(io.env.HOME);
  const loaded = loadProject(root, { toolNames: builtinCatalog().names, ...user });
  const settings = loadSettings(root, user.userDir, toolNames(builtinCatalog().names)).settings;
  const servers = projectServers(root, loaded.definitions, { mcpJsonServers: mcpJsonFilter(settings) });
  const style = styleFor(io.stderr, io.env);
  for (const d of servers.diagnostics)
    if (d.severity !== "info") io.stderr.write(`${formatDiagnostic(d, io.cwd, style)}\n`);
  const specs = [...servers.project, ...loaded.definitions.flatMap((d) => servers.inlineOf(d))];
  return { root, specs };
}

/**
 * Why `command` starts none of `root`'s servers (`names`): starting one runs the project's code,
 * which only a trusted folder does; said as `mcp list`, `tools --mcp` and `audit --mcp` say it.
 */
export function untrustedServers(command: string, root: string, names: readonly string[]): string {
  return `agentmd ${command}: ${root} is not trusted, so its servers were not started (${names.join(", ")}); review them with 'agentmd trust'`;
}

/**
 * For `agentmd tools`: starts the MCP servers `list` could offer a tool of (the project's, and the
 * inline ones of `chain`'s subagents), lists their tools, and stops them. `mcpJsonServers`: the
 * `.mcp.json` servers the settings let start (all when absent). In a folder whose code is not
 * trusted (by the trust file of `home`) none starts: `refused` says so. Never rejects.
 */
export async function mcpToolNames(
  root: string,
  definitions: readonly Definition[],
  chain: readonly Definition[],
  list: PermissionList,
  env: Readonly<Record<string, string | undefined>>,
  at: { readonly command: string; readonly home: string },
  mcpJsonServers?: ProjectServerOptions["mcpJsonServers"],
): Promise<StartedServers> {
  const servers = projectServers(root, definitions, { ...(mcpJsonServers && { mcpJsonServers }) });
  const specs: McpServerSpec[] = [...servers.project, ...chain.flatMap((d) => servers.inlineOf(d))];
  if (specs.length === 0) return { names: [], lines: [] };
  if (trustState(root, at.home).kind === "untrusted") {
    const names = [...new Set(specs.map((s) => s.name))];
    return { names: [], lines: [], refused: untrustedServers(at.command, root, names) };
  }
  // The MCP client loads only when servers are to be started (`tools --mcp`, `audit --mcp`).
  const { createMcpHub, reachable } = await import("../../mcp/mcp-hub.js");
  const hub = createMcpHub({ timeoutMs: 30_000, cwd: root, env, home: at.home });
  try {
    const wanted = reachable(specs, list);
    const lines: string[] = [];
    const names: string[] = [];
    for (const s of wanted) {
      const r = await hub.connection(s).start();
      if (!r.ok) {
        lines.push(`${s.name}: ${r.message.split("\n")[0]}`);
        continue;
      }
      const mine = r.listing.tools.map((t) => mcpToolName(s.name, t.name));
      names.push(...mine);
      lines.push(`${s.name}: ${mine.length} tool${mine.length === 1 ? "" : "s"}`);
    }
    return { names, lines };
  } finally {
    await hub.close();
  }
}
