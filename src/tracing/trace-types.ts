import type { RunEvent } from "../loop/events.js";

// The tracing seam's types, in a leaf: the seam and the OpenTelemetry side both name them.

/** The trace of one `run()`: it sees the run's events as they happen, and names its current span. */
export interface RunTrace {
  /** Called with every event of the run and its children, in order, before anyone else sees it. */
  observe(event: RunEvent): void;
  /**
   * The W3C `traceparent` of the span a process started now belongs under: the call's
   * `execute_tool` span, or the run's `invoke_agent` span. Undefined: not a span of this trace.
   */
  traceparent(runId: string, callId?: string): string | undefined;
}

export interface Tracing {
  /**
   * A trace for one run: its top `invoke_agent` span is a child of `parent` (a `traceparent`, as
   * a queue's job carries it) or of the one agentmd was started in (`TRACEPARENT`), else a root.
   */
  forRun(parent?: string): RunTrace;
  /**
   * A span of work that is not a run (putting a batch on a queue), under the context agentmd was
   * started in: its `traceparent` is what the work done elsewhere goes on from.
   */
  span(name: string, attributes?: Readonly<Record<string, string | number>>): WorkSpan;
  /** Sends the spans not sent yet, within a few seconds. Contract: never rejects; idempotent. */
  shutdown(): Promise<void>;
}

export interface WorkSpan {
  readonly traceparent?: string;
  end(): void;
}
