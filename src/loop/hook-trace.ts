import { nodeCrypto } from "../shared/node-builtins.js";
import type { EventSink } from "./events.js";
import type { HookTrace } from "./hook-types.js";

/** Where a traced run's hook spans go: its event stream, and its trace's context for each. */
export interface HookTraceAt {
  /** The run the hooks belong to ("" for a session's hooks before its first run). */
  readonly runId: string;
  readonly depth: number;
  readonly emit: EventSink;
  /** The `traceparent` of a span the trace made from this run's events, by its id. */
  readonly traceparent: (id: string) => string | undefined;
}

/**
 * Hook runs as events: `hook_start` opens the hook's span (the trace reads the stream), whose
 * context its process then runs under; `hook_end` says what it answered.
 */
export function hookTrace(at: HookTraceAt): HookTrace {
  const base = { runId: at.runId, depth: at.depth };
  return {
    start(hook) {
      const id = `hook_${nodeCrypto().randomBytes(6).toString("hex")}`;
      at.emit({ ...base, type: "hook_start", id, ...hook });
      const traceparent = at.traceparent(id);
      return {
        ...(traceparent && { traceparent }),
        end: (end) => at.emit({ ...base, type: "hook_end", id, ...end }),
      };
    },
  };
}
