import type { CallApproval, RunState } from "../loop/execute-call.js";
import type { StartWatch } from "../mcp/mcp-connection.js";
import { type McpServerState, reachable } from "../mcp/mcp-hub.js";
import { LIST_RESOURCES, READ_RESOURCE, resourceServers, resourceTools } from "../mcp/mcp-resources.js";
import type { McpServerSpec } from "../mcp/server-spec.js";
import { offered } from "../permissions/permission-list.js";
import type { PermissionList } from "../permissions/types.js";
import { createToolRegistry, offeredUnderApproval, type ToolRegistry } from "../tools/registry.js";
import { deferredNames } from "../tools/search/deferral.js";
import { createToolSearchTool, TOOL_SEARCH } from "../tools/search/tool-search-tool.js";
import type { Tool } from "../tools/types.js";
import type { Core } from "./core.js";
import type { RunSpec } from "./run-types.js";

/**
 * The tools of one run beyond the catalog's, worked out when it starts: the tools of the MCP servers
 * it may reach and its list could offer, and ToolSearch over those whose definitions are deferred.
 * This is the one step where tools from outside join a run; the loop only asks `offer` again when
 * the list narrows or ToolSearch reveals tools.
 */
export interface RunTools {
  /** The tools that join the catalog's for this run (MCP servers' tools, ToolSearch). */
  readonly tools: readonly Tool[];
  /** Deferred tools ToolSearch has not revealed yet: a request does not show them. */
  readonly hidden: ReadonlySet<string>;
  /** Servers that did not start; deferred tools no ToolSearch can find. */
  readonly warnings: readonly string[];
  /** Why each server the run could reach did not start. */
  readonly failed: readonly string[];
  /** The run's signal was aborted while a server was starting: what to say of it. */
  readonly interrupted?: string;
  /** The servers the run could reach, and how their start went. */
  readonly servers?: readonly McpServerState[];
}

/** Never rejects; the signal's abort ends the wait for servers still starting. */
export async function runTools(
  core: Core,
  spec: RunSpec,
  state: RunState,
  signal?: AbortSignal,
  watch?: StartWatch,
): Promise<RunTools> {
  const external = core.external;
  const servers = [
    ...external.servers.project,
    ...(spec.mcpScope ?? []).flatMap((def) => external.servers.inlineOf(def)),
  ];
  const found =
    servers.length > 0 ? await external.hub.toolsFor(servers, spec.list, signal, watch) : undefined;
  const failed = {
    failed: found?.failed ?? [],
    ...(found?.interrupted !== undefined && { interrupted: found.interrupted }),
    ...(found && { servers: found.servers }),
  };
  const resources = resourceToolsOf(core, servers, spec.list);
  if (!found || found.tools.length + resources.length === 0)
    return { tools: [], hidden: new Set(), warnings: found?.warnings ?? [], ...failed };
  const mcp = { ...found, tools: [...found.tools, ...resources] };
  const withoutSearch = registryWith(core, mcp.tools);
  const offerAll = (list: PermissionList) =>
    offeredUnderApproval(withoutSearch.all, list, approvalOf(core, spec));
  const deferrable = new Set(mcp.tools.map((t) => t.name));
  const deferred = deferredNames(offerAll(spec.list), deferrable, mcp.deferred, external.toolSearch);
  // What registering them said (a tool renamed for the API, a schema that does not compile).
  const said = (r: ToolRegistry) => r.warnings.filter((w) => !core.catalog.registry.warnings.includes(w));
  if (deferred.size === 0)
    return {
      tools: mcp.tools,
      hidden: new Set(),
      warnings: [...mcp.warnings, ...said(withoutSearch)],
      ...failed,
    };
  const hidden = new Set(deferred);
  const search = createToolSearchTool(
    {
      candidates: () => offerAll(state.list).filter((r) => deferred.has(r.tool.name)),
      reveal: (names) => {
        for (const n of names) hidden.delete(n);
        state.offerVersion = (state.offerVersion ?? 0) + 1;
      },
    },
    [...deferred].sort(),
  );
  const tools = [...mcp.tools, search];
  const warnings = [...mcp.warnings, ...said(registryWith(core, tools))];
  if (offered(spec.list, [TOOL_SEARCH]).length === 0)
    warnings.push(
      `${deferred.size} tool definitions are deferred (toolSearch), but this run's list does not allow ToolSearch, so the model cannot find them; allow ToolSearch, or set toolSearch: false`,
    );
  return { tools, hidden, warnings, ...failed };
}

/**
 * ListMcpResourcesTool and ReadMcpResourceTool, when the list names them (and no tool of the
 * catalog has their names), over the servers the list reaches whole.
 */
function resourceToolsOf(core: Core, servers: readonly McpServerSpec[], list: PermissionList): Tool[] {
  const names = [LIST_RESOURCES, READ_RESOURCE];
  if (names.some((n) => core.catalog.names.includes(n)) || offered(list, names).length === 0) return [];
  const readable = resourceServers(reachable(servers, list), list);
  if (readable.length === 0) return [];
  return resourceTools(readable, (s) => core.external.hub.connection(s)).filter(
    (t) => offered(list, [t.name]).length > 0,
  );
}

/** The catalog's tools with `extra` beside them (the catalog's own registry when there are none). */
export function registryWith(core: Pick<Core, "catalog">, extra: readonly Tool[]): ToolRegistry {
  const base = core.catalog.registry;
  return extra.length ? createToolRegistry([...base.all.map((r) => r.tool), ...extra]) : base;
}

/**
 * The tools a list offers, given the approval tier: a tool that runs on the API's side (WebSearch)
 * cannot be asked about, so it is offered only within what runs without asking. The one rule for
 * runs and for `agentmd tools`.
 */
/** The approval tier a run's calls meet: the session's, bounded by the run's permission mode. */
export function approvalOf(core: Core, spec: RunSpec): CallApproval {
  if (!spec.permissionMode && !spec.workdir) return core.approval;
  const bound = {
    ...(spec.permissionMode && { mode: spec.permissionMode }),
    ...(spec.workdir && { workingDir: spec.workdir.root }),
  };
  return core.approval.within?.(bound) ?? core.approval;
}
