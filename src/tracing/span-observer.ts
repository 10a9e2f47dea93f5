import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { RunEvent } from "../loop/events.js";
import type { Usage } from "../model/models.js";
import type { DecisionNote } from "../permissions/decision-note.js";
import { callKey, clip, type Start, sideEvent } from "./side-spans.js";
import type { RunTrace } from "./trace-types.js";

/**
 * The spans of one `run()`, made from its event stream alone, after the GenAI semantic
 * conventions: `invoke_agent` per run (the main agent, each subagent, each forked skill), `chat`
 * per model request, `execute_tool` per tool call, and `compaction`. A child run's span is a child
 * of the `execute_tool` span of the Task (or Skill) call that started it; a call's span carries
 * its permission decision and the rule that made it.
 */
export function spanObserver(
  tracer: Tracer,
  root: Context,
  traceparentOf: (cx: Context) => string | undefined,
): RunTrace {
  const runs = new Map<string, OpenRun>();
  const ended = new Set<string>();
  const calls = new Map<string, Span>();
  /** Hook runs and MCP server starts, by run and id. */
  const others = new Map<string, Span>();
  const start: Start = (name, parent, attributes, kind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, attributes }, parent);
  // The top run's span, opened early by what comes before its run_start (the session's hooks, the
  // MCP servers it starts); its run_start names it.
  let lead: OpenRun | undefined;
  const leadRun = (): OpenRun => {
    if (!lead) {
      const span = start("invoke_agent", root, { "gen_ai.operation.name": "invoke_agent" });
      lead = { span, cx: trace.setSpan(root, span), model: "" };
    }
    return lead;
  };
  /** The run an event belongs to; a top run not started yet is the lead. */
  const runOf = (runId: string, depth: number): OpenRun | undefined => {
    const run = runs.get(runId);
    if (run || depth > 0 || ended.has(runId)) return run;
    if (runId === "") return leadRun();
    runs.set(runId, leadRun());
    return runs.get(runId);
  };

  const onRunStart = (e: Extract<RunEvent, { type: "run_start" }>) => {
    const early = e.parentRunId ? undefined : (runs.get(e.runId) ?? lead);
    if (early) {
      lead = undefined;
      early.span.updateName(`invoke_agent ${e.agent}`);
      early.span.setAttributes(runAttributes(e));
      runs.set(e.runId, { ...early, model: e.model });
      return;
    }
    runs.set(e.runId, openRun(e, { start, root, calls, runs }));
  };

  /** Where a span of a run's call (`callId`) or of the run itself goes. */
  const under = (runId: string, depth: number, callId?: string): Context | undefined => {
    const call = callId && calls.get(callKey(runId, callId));
    return call ? trace.setSpan(root, call) : runOf(runId, depth)?.cx;
  };
  const sides = { tracer, start, calls, others, under };

  const observe = (e: RunEvent) => {
    if (e.type === "run_start") return onRunStart(e);
    if (sideEvent(sides, e)) return;
    const run = runOf(e.runId, e.depth);
    if (!run || e.runId === "") return;
    if (chatEvent(run, e, start) || callEvent(run, e, start, calls)) return;
    runEvent(run, e, start);
    if (e.type === "run_end") {
      runs.delete(e.runId);
      ended.add(e.runId);
    }
  };

  return {
    observe: (e) => {
      // A span that cannot be made is a trace with a gap, never a run that fails.
      try {
        observe(e);
      } catch {}
    },
    traceparent: (runId, callId) => {
      const key = callId && callKey(runId, callId);
      const span = (key && (calls.get(key) ?? others.get(key))) || runs.get(runId)?.span;
      return span ? traceparentOf(trace.setSpan(root, span)) : undefined;
    },
  };
}

/** A run's span: a child of the call (else the run) that started it, or of the trace's root. */
function openRun(
  e: Extract<RunEvent, { type: "run_start" }>,
  at: { start: Start; root: Context; calls: Map<string, Span>; runs: Map<string, OpenRun> },
): OpenRun {
  const parent =
    (e.parentRunId && e.parentToolUseId && at.calls.get(callKey(e.parentRunId, e.parentToolUseId))) ||
    (e.parentRunId && at.runs.get(e.parentRunId)?.span);
  const cx = parent ? trace.setSpan(at.root, parent) : at.root;
  const span = at.start(`invoke_agent ${e.agent}`, cx, runAttributes(e));
  return { span, cx: trace.setSpan(at.root, span), model: e.model };
}

/** A model request: `chat` from turn_start to message_end (or the request's error). True: handled. */
function chatEvent(run: OpenRun, e: RunEvent, start: Start): boolean {
  switch (e.type) {
    case "turn_start":
      run.chat?.end();
      run.chat = start(`chat ${run.model}`, run.cx, chatAttributes(run.model, e.turn), SpanKind.CLIENT);
      return true;
    case "retry":
      run.chat?.addEvent("retry", { attempt: e.attempt, reason: e.reason, delay_ms: e.delayMs });
      return true;
    case "usage":
      run.chat?.setAttributes({ ...usageAttributes(e.usage), "agentmd.cost_usd": e.costUsd });
      return true;
    case "message_end":
      run.chat?.setAttribute("gen_ai.response.finish_reasons", e.stopReason ? [e.stopReason] : []);
      run.chat?.end();
      run.chat = undefined;
      return true;
    case "error":
      for (const span of [run.chat, run.span])
        span?.setStatus({ code: SpanStatusCode.ERROR, message: clip(e.message) });
      run.span.setAttribute(ATTR_ERROR_TYPE, e.code);
      run.chat?.end();
      run.chat = undefined;
      return true;
    default:
      return false;
  }
}

/** A tool call: `execute_tool` from tool_start to tool_end; a server-side call is said whole. True: handled. */
function callEvent(run: OpenRun, e: RunEvent, start: Start, calls: Map<string, Span>): boolean {
  switch (e.type) {
    case "tool_start":
      calls.set(
        callKey(e.runId, e.id),
        start(`execute_tool ${e.name}`, run.cx, toolAttributes(e.name, e.id)),
      );
      return true;
    case "tool_end":
      endCall(calls, callKey(e.runId, e.id), e);
      return true;
    case "server_tool": {
      const span = start(`execute_tool ${e.name}`, run.cx, {
        ...toolAttributes(e.name, e.id),
        "gen_ai.tool.type": "server",
      });
      if (e.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: clip(e.content) });
      span.end();
      return true;
    }
    default:
      return false;
  }
}

/** What happens to the run itself: a compaction, the events said on its span, its end. */
function runEvent(run: OpenRun, e: RunEvent, start: Start): void {
  switch (e.type) {
    case "compaction":
      start("compaction", run.cx, {
        "agentmd.compaction.tokens_before": e.tokensBefore,
        "agentmd.compaction.kept_messages": e.kept,
      }).end();
      return;
    case "limit":
    case "refusal":
    case "abort":
    case "warning":
      run.span.addEvent(e.type, { message: clip(e.message), ...(e.type === "limit" && { kind: e.kind }) });
      return;
    case "run_end":
      run.chat?.end();
      run.span.setAttributes({
        "agentmd.run.outcome": e.outcome,
        "agentmd.run.turns": e.turns,
        "agentmd.cost_usd": e.costUsd,
        ...usageAttributes(e.usage),
      });
      if (e.outcome === "aborted") run.span.setStatus({ code: SpanStatusCode.ERROR, message: "aborted" });
      run.span.end();
      return;
  }
}

interface OpenRun {
  readonly span: Span;
  readonly cx: Context;
  readonly model: string;
  chat?: Span;
}

function runAttributes(e: Extract<RunEvent, { type: "run_start" }>): Attributes {
  return {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.provider.name": "anthropic",
    "gen_ai.agent.name": e.agent,
    "gen_ai.agent.id": e.runId,
    "gen_ai.request.model": e.model,
    "gen_ai.conversation.id": e.sessionId,
    "agentmd.run.depth": e.depth,
    "agentmd.run.tools": [...e.tools],
    ...(e.list && { "agentmd.permission.list": [...e.list] }),
    ...(e.input !== undefined && { "agentmd.run.input": clip(e.input) }),
  };
}

const chatAttributes = (model: string, turn: number): Attributes => ({
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "anthropic",
  "gen_ai.request.model": model,
  "agentmd.turn": turn,
});

const toolAttributes = (name: string, id: string): Attributes => ({
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name,
  "gen_ai.tool.call.id": id,
  "gen_ai.tool.type": name.startsWith("mcp__") ? "extension" : "function",
});

/** Input tokens count the cached ones too (as the conventions ask); each cache count is said apart. */
const usageAttributes = (u: Usage): Attributes => ({
  "gen_ai.usage.input_tokens": u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
  "gen_ai.usage.output_tokens": u.output_tokens,
  "gen_ai.usage.cache_read.input_tokens": u.cache_read_input_tokens,
  "gen_ai.usage.cache_creation.input_tokens": u.cache_creation_input_tokens,
});

/** A call's end: its decision (and the rule behind it) on its span; one that did not run or failed is an error. */
function endCall(calls: Map<string, Span>, key: string, e: Extract<RunEvent, { type: "tool_end" }>): void {
  const span = calls.get(key);
  if (!span) return;
  calls.delete(key);
  span.setAttributes({ "agentmd.tool.decision": e.decision, ...decisionAttributes(e.permission) });
  if (e.decision !== "allowed") {
    span.setAttribute(ATTR_ERROR_TYPE, e.decision);
    span.setStatus({ code: SpanStatusCode.ERROR, message: clip(e.content) });
  } else if (e.isError) {
    span.setAttribute(ATTR_ERROR_TYPE, "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR, message: clip(e.content) });
  }
  span.end();
}

function decisionAttributes(n: DecisionNote | undefined): Attributes {
  if (!n) return {};
  return {
    "agentmd.permission.verdict": n.verdict,
    ...(n.reason && { "agentmd.permission.reason": n.reason }),
    ...(n.rule && { "agentmd.permission.rule": n.rule }),
    ...(n.at && { "agentmd.permission.rule.at": n.at }),
    ...(n.asked && {
      "agentmd.permission.asked.reason": clip(n.asked.reason),
      "agentmd.permission.asked.answer": n.asked.answer,
    }),
  };
}
