import type { StartWatch } from "../mcp/mcp-connection.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import type { RunIo, RunSpec } from "./run-types.js";

/**
 * The start-up spans of the MCP servers a traced run starts, said on its event stream before its
 * `run_start`: a subagent's (or forked skill's) within the parent's call that started it, a top
 * run's within the run's own span. Undefined: the run is not traced.
 */
export function mcpStartWatch(spec: RunSpec, io: RunIo, runId: string): StartWatch | undefined {
  const trace = io.trace;
  if (!trace) return undefined;
  const at = spec.parentRunId
    ? {
        runId: spec.parentRunId,
        depth: Math.max(0, spec.depth - 1),
        ...(io.parentToolUseId && { callId: io.parentToolUseId }),
      }
    : { runId, depth: spec.depth };
  const base = { runId: at.runId, depth: at.depth };
  return {
    starting(server) {
      const id = `mcp_${nodeCrypto().randomBytes(6).toString("hex")}`;
      io.emit({ ...at, type: "mcp_server_start", id, ...server });
      const traceparent = trace.traceparent(at.runId, id);
      return {
        ...(traceparent && { traceparent }),
        done: (r) => io.emit({ ...base, type: "mcp_server_end", id, ...r }),
      };
    },
  };
}
