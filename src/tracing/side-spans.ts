import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { RunEvent } from "../loop/events.js";

/**
 * The spans beside a run's own (span-observer.ts): a hook run (`hook <event>`, under its tool call
 * or its run), an MCP server's start (`initialize <server>`, after the MCP conventions), a command's
 * start in the OS sandbox (`sandbox`, under its call, which says it ran sandboxed), and the MCP side
 * of a call (on its `execute_tool` span).
 */

export type Start = (name: string, parent: Context, attributes: Attributes, kind?: SpanKind) => Span;

export const callKey = (runId: string, id: string) => `${runId}\u0000${id}`;

export const clip = (text: string) => (text.length > 1_000 ? `${text.slice(0, 999)}…` : text);

export interface Sides {
  readonly tracer: Tracer;
  readonly start: Start;
  readonly calls: ReadonlyMap<string, Span>;
  readonly others: Map<string, Span>;
  /** The context a span of a run (or of its call `callId`) goes under; undefined: not of this trace. */
  under(runId: string, depth: number, callId?: string): Context | undefined;
}

/** True: the event was one of these (handled, or of no span of this trace). */
export function sideEvent(x: Sides, e: RunEvent): boolean {
  switch (e.type) {
    case "hook_start": {
      const cx = x.under(e.runId, e.depth, e.callId);
      if (cx) x.others.set(callKey(e.runId, e.id), x.start(`hook ${e.event}`, cx, hookAttributes(e)));
      return true;
    }
    case "hook_end":
      endOther(x, e.runId, e.id, hookEndAttributes(e), failure(e.outcome, e.reason));
      return true;
    case "mcp_server_start": {
      const cx = x.under(e.runId, e.depth, e.callId);
      if (cx)
        x.others.set(
          callKey(e.runId, e.id),
          x.start(`initialize ${e.server}`, cx, mcpStartAttributes(e), SpanKind.CLIENT),
        );
      return true;
    }
    case "mcp_server_end": {
      const error = e.error !== undefined ? { type: "mcp_server_failed", message: e.error } : undefined;
      endOther(x, e.runId, e.id, mcpEndAttributes(e), error);
      return true;
    }
    case "sandbox":
      sandboxSpan(x, e);
      return true;
    case "mcp_call":
      x.calls.get(callKey(e.runId, e.id))?.setAttributes({
        "mcp.method.name": e.method,
        "agentmd.mcp.server.name": e.server,
        "agentmd.mcp.tool.name": e.tool,
        "network.transport": e.transport === "stdio" ? "pipe" : "tcp",
      });
      return true;
    default:
      return false;
  }
}

type Failure = { readonly type: string; readonly message: string } | undefined;

function endOther(x: Sides, runId: string, id: string, attributes: Attributes, error: Failure): void {
  const key = callKey(runId, id);
  const span = x.others.get(key);
  if (!span) return;
  x.others.delete(key);
  span.setAttributes(attributes);
  if (error) {
    span.setAttribute(ATTR_ERROR_TYPE, error.type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: clip(error.message) });
  }
  span.end();
}

function hookAttributes(e: Extract<RunEvent, { type: "hook_start" }>): Attributes {
  return {
    "agentmd.hook.event": e.event,
    ...(e.command !== undefined && { "agentmd.hook.command": clip(e.command) }),
    ...(e.origin !== undefined && { "agentmd.hook.origin": e.origin }),
    ...(e.matcher !== undefined && { "agentmd.hook.matcher": e.matcher }),
    ...(e.callId !== undefined && { "gen_ai.tool.call.id": e.callId }),
  };
}

function hookEndAttributes(e: Extract<RunEvent, { type: "hook_end" }>): Attributes {
  return {
    "agentmd.hook.outcome": e.outcome,
    ...(e.reason !== undefined && { "agentmd.hook.reason": clip(e.reason) }),
    ...(e.exitCode !== undefined && { "agentmd.hook.exit_code": e.exitCode }),
  };
}

/** A hook that failed or was withheld (not trusted) is an error; a block is its answer, not one. */
function failure(outcome: string, reason: string | undefined): Failure {
  if (outcome !== "failed" && outcome !== "withheld") return undefined;
  return { type: `hook_${outcome}`, message: reason ?? outcome };
}

function mcpStartAttributes(e: Extract<RunEvent, { type: "mcp_server_start" }>): Attributes {
  return {
    "mcp.method.name": "initialize",
    "agentmd.mcp.server.name": e.server,
    "agentmd.mcp.transport": e.transport,
    "network.transport": e.transport === "stdio" ? "pipe" : "tcp",
  };
}

function mcpEndAttributes(e: Extract<RunEvent, { type: "mcp_server_end" }>): Attributes {
  return {
    ...(e.tools !== undefined && { "agentmd.mcp.server.tools": e.tools }),
    ...(e.prompts !== undefined && { "agentmd.mcp.server.prompts": e.prompts }),
  };
}

/**
 * A command's start in the sandbox: its call's span says it ran sandboxed (what it could write and
 * reach), and a `sandbox` span under it, as long as the start took, says the same, or the refusal.
 */
function sandboxSpan(x: Sides, e: Extract<RunEvent, { type: "sandbox" }>): void {
  const call = x.calls.get(callKey(e.runId, e.id));
  const cx = x.under(e.runId, e.depth, e.id);
  if (!call || !cx) return;
  const attributes: Attributes = {
    "agentmd.sandbox": true,
    "agentmd.sandbox.writable": [...e.writable],
    "agentmd.sandbox.network": e.network === "none" ? "none" : "proxy",
    ...(e.network !== "none" && { "agentmd.sandbox.network.allowed": [...e.network] }),
    ...(e.refused !== undefined && { "agentmd.sandbox.refused": clip(e.refused) }),
  };
  call.setAttributes(attributes);
  const span = x.tracer.startSpan(
    "sandbox",
    {
      kind: SpanKind.INTERNAL,
      attributes: { ...attributes, "agentmd.sandbox.read_only": [...e.readOnly] },
      startTime: Date.now() - e.ms,
    },
    cx,
  );
  if (e.refused !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, "sandbox_refused");
    span.setStatus({ code: SpanStatusCode.ERROR, message: clip(e.refused) });
  }
  span.end();
}
