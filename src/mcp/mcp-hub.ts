import { mayOfferPrefix } from "../permissions/prefix-reach.js";
import type { PermissionList } from "../permissions/types.js";
import type { Tool } from "../tools/types.js";
import {
  type ConnectionContext,
  McpConnection,
  type ServerListing,
  type Started,
  type StartWatch,
} from "./mcp-connection.js";
import { mcpTools } from "./mcp-tools.js";
import { asksForSignIn } from "./oauth-provider.js";
import { type McpServerSpec, serverKey, serverPrefix } from "./server-spec.js";

/** The MCP tools of one run: what its servers offer, and which of them a server asked to defer. */
export interface RunMcpTools {
  readonly tools: readonly Tool[];
  /** Tools of servers marked `defer: true`: found through ToolSearch only. */
  readonly deferred: ReadonlySet<string>;
  /** One sentence per server that could not be started (with its stderr's tail). */
  readonly warnings: readonly string[];
  /** Why each server the list could reach did not start (with its stderr's tail). */
  readonly failed: readonly string[];
  /** Set when the signal was aborted while a server was starting: what to say of it. */
  readonly interrupted?: string;
  /** Each server the list could reach, and how its start went (as Claude Code's `mcp_servers` says it). */
  readonly servers: readonly McpServerState[];
}

/** A server of a run: `needs-auth` when it wants a sign-in (`agentmd mcp login`) the run does not have. */
export interface McpServerState {
  readonly name: string;
  readonly status: "connected" | "failed" | "needs-auth" | "pending";
}

/**
 * The MCP servers of a runner: each started when a run first needs it, shared by every run of the
 * runner (the CLI has one runner per process), and stopped by `close`.
 */
export interface McpHub {
  /** The connection for a server (made, not started). */
  connection(spec: McpServerSpec): McpConnection;
  /**
   * Starts those of `servers` whose tools `list` could offer (see `mayOfferPrefix`; a server none of
   * whose names any rule could cover is never started) and returns their tools. The signal's abort
   * ends the wait (a starting server goes on starting until `close`). Never rejects.
   */
  toolsFor(
    servers: readonly McpServerSpec[],
    list: PermissionList,
    signal?: AbortSignal,
    watch?: StartWatch,
  ): Promise<RunMcpTools>;
  /** Stops every server. Later runs start none. */
  close(): Promise<void>;
}

export function createMcpHub(cx: ConnectionContext): McpHub {
  const connections = new Map<string, McpConnection>();
  const toolsOf = new WeakMap<ServerListing, Tool[]>();
  const connection = (spec: McpServerSpec) => {
    const key = serverKey(spec);
    let c = connections.get(key);
    if (!c) {
      c = new McpConnection(spec, cx);
      connections.set(key, c);
    }
    return c;
  };
  return {
    connection,
    async toolsFor(servers, list, signal, watch) {
      const wanted = reachable(servers, list);
      const started = await Promise.all(
        wanted.map(async (s) => ({ s, c: connection(s), r: await connection(s).start(signal, watch) })),
      );
      const tools: Tool[] = [];
      const deferred = new Set<string>();
      const warnings: string[] = [];
      const failed: string[] = [];
      let interrupted: string | undefined;
      const states: McpServerState[] = [];
      for (const { s, c, r } of started) {
        states.push({ name: s.name, status: stateOf(r) });
        if (!r.ok && r.interrupted) interrupted ??= r.message;
        else if (!r.ok) {
          failed.push(r.message);
          warnings.push(
            asksForSignIn(r.message)
              ? `${r.message}; its tools are not offered in this run`
              : `${r.message}\nIts tools are not offered in this run.`,
          );
        }
        if (!r.ok) continue;
        let made = toolsOf.get(r.listing);
        if (!made) {
          made = mcpTools(c, r.listing.tools);
          toolsOf.set(r.listing, made);
        }
        tools.push(...made);
        if (s.config.defer === true) for (const t of made) deferred.add(t.name);
      }
      const end = { servers: states, ...(interrupted !== undefined && { interrupted }) };
      return { tools, deferred, warnings, failed, ...end };
    },
    async close() {
      await Promise.all([...connections.values()].map((c) => c.close()));
    },
  };
}

function stateOf(r: Started): McpServerState["status"] {
  if (r.ok) return "connected";
  if (r.interrupted) return "pending";
  return asksForSignIn(r.message) ? "needs-auth" : "failed";
}

/** The servers a list could offer a tool of; a later definition of a name wins over an earlier one. */
export function reachable(servers: readonly McpServerSpec[], list: PermissionList): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const s of servers) byName.set(s.name, s);
  return [...byName.values()].filter((s) => mayOfferPrefix(list, serverPrefix(s.name)));
}
