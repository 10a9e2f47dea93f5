import { offered } from "../permissions/permission-list.js";
import type { PermissionList } from "../permissions/types.js";
import { type OfferedTool, offeredTools, type RegisteredTool, type ToolRegistry } from "../tools/registry.js";
import { deferredNames } from "../tools/search/deferral.js";
import { createToolSearchTool, TOOL_SEARCH } from "../tools/search/tool-search-tool.js";
import type { Tool } from "../tools/types.js";
import type { ParentRun } from "./start-run.js";

/**
 * The tools of one run beyond the catalog's, worked out when it starts: the tools of the MCP servers
 * it may reach and its list could offer, and ToolSearch over those whose definitions are deferred.
 * This is the one step where tools from outside join a run; the loop only asks `offer` again when
 * the list narrows or ToolSearch reveals tools.
 */
export interface RunTools {
  readonly registry: ToolRegistry;
  /** What a request shows for a list: every tool it offers, deferred ones once ToolSearch found them. */
  offer(list: PermissionList): OfferedTool[];
  /** Every tool the list offers, deferred or not (what the run's calls can reach). */
  offerAll(list: PermissionList): OfferedTool[];
  /** Servers that did not start; deferred tools no ToolSearch can find. */
  readonly warnings: readonly string[];
}

/** `build` makes the run's registry from the tools added to the catalog's. Never rejects. */
export async function runTools(
  parent: ParentRun,
  build: (extra: readonly Tool[]) => ToolRegistry,
): Promise<RunTools> {
  const { core, spec, state } = parent;
  const external = core.external;
  const servers = [
    ...external.servers.project,
    ...(spec.mcpScope ?? []).flatMap((def) => external.servers.inlineOf(def)),
  ];
  const mcp = servers.length > 0 ? await external.hub.toolsFor(servers, spec.list) : undefined;
  const offerAllOf = (registry: ToolRegistry) => (list: PermissionList) =>
    offeredUnderApproval(registry.all, list, core.approval);
  if (!mcp || mcp.tools.length === 0) {
    const registry = build([]);
    const offerAll = offerAllOf(registry);
    return { registry, offer: offerAll, offerAll, warnings: mcp?.warnings ?? [] };
  }
  const withoutSearch = build(mcp.tools);
  const deferrable = new Set(mcp.tools.map((t) => t.name));
  const deferred = deferredNames(
    offerAllOf(withoutSearch)(spec.list),
    deferrable,
    mcp.deferred,
    external.toolSearch,
  );
  // What registering them said (a tool renamed for the API, a schema that does not compile).
  const said = (r: ToolRegistry) => r.warnings.filter((w) => !core.catalog.registry.warnings.includes(w));
  if (deferred.size === 0) {
    const offerAll = offerAllOf(withoutSearch);
    return {
      registry: withoutSearch,
      offer: offerAll,
      offerAll,
      warnings: [...mcp.warnings, ...said(withoutSearch)],
    };
  }
  const hidden = new Set(deferred);
  let registry = withoutSearch;
  const search = createToolSearchTool(
    {
      candidates: () => offerAllOf(registry)(state.list).filter((r) => deferred.has(r.tool.name)),
      reveal: (names) => {
        for (const n of names) hidden.delete(n);
        state.offerVersion = (state.offerVersion ?? 0) + 1;
      },
    },
    [...deferred].sort(),
  );
  registry = build([...mcp.tools, search]);
  const offerAll = offerAllOf(registry);
  const warnings = [...mcp.warnings, ...said(registry)];
  if (offered(spec.list, [TOOL_SEARCH]).length === 0)
    warnings.push(
      `${deferred.size} tool definitions are deferred (toolSearch), but this run's list does not allow ToolSearch, so the model cannot find them; allow ToolSearch, or set toolSearch: false`,
    );
  return {
    registry,
    offer: (list) => offerAll(list).filter((r) => !hidden.has(r.tool.name)),
    offerAll,
    warnings,
  };
}

/**
 * The tools a list offers, given the approval tier: a tool that runs on the API's side (WebSearch)
 * cannot be asked about, so it is offered only within what runs without asking. The one rule for
 * runs and for `agentmd tools`.
 */
export function offeredUnderApproval(
  tools: readonly RegisteredTool[],
  list: PermissionList,
  approval: { unasked(list: PermissionList): PermissionList | undefined },
): OfferedTool[] {
  const unasked = approval.unasked(list);
  return tools.flatMap((r) =>
    r.tool.server && !unasked ? [] : offeredTools([r], r.tool.server && unasked ? unasked : list),
  );
}
