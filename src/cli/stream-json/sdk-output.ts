import type { RunEvent, RunResult } from "../../loop/events.js";
import { type Usage, ZERO_USAGE } from "../../model/models.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { type ClaudeSession, claudeOutput, messageId } from "../terminal/claude-output.js";
import { VERSION } from "../version.js";
import type { SdkMcpServer } from "./sdk-mcp.js";

/**
 * One turn's messages as Claude Code writes them to the Agent SDK: `system` `init` first (with
 * the SDK's MCP servers and the mode in force), one `assistant` message per content block,
 * `system` `permission_denied` before a refused call's result, `stream_event`s with
 * `--include-partial-messages` (text deltas), and the turn's `result` with its subtype and
 * `errors`. Built on the `-p --output-format stream-json` shapes, so the two cannot drift.
 */
export interface TurnOutput {
  messages(event: RunEvent): object[];
  result(r: RunResult, ms: number): object;
}

export interface TurnSession extends ClaudeSession {
  readonly mcpServers: readonly SdkMcpServer[];
  readonly partialMessages: boolean;
}

export function turnOutput(session: TurnSession): TurnOutput {
  const claude = claudeOutput(session);
  const partial = partialMessages();
  const names = new Map<string, string>();
  let sessionId = "";
  let stopReason: string | null = null;
  const tagged = (m: object) => ({ ...m, uuid: nodeCrypto().randomUUID() });
  return {
    messages(e) {
      if (e.type === "run_start") sessionId = e.sessionId;
      if (e.type === "tool_start") names.set(e.id, e.name);
      if (e.type === "message_end" && e.depth === 0) stopReason = e.stopReason;
      const before: object[] = [];
      if (session.partialMessages && e.depth === 0) before.push(...partial(e, sessionId));
      if (e.type === "tool_end" && (e.decision === "denied" || e.decision === "blocked-by-hook"))
        before.push({
          type: "system",
          subtype: "permission_denied",
          tool_name: e.name,
          tool_use_id: e.id,
          decision_reason_type: e.decision === "denied" ? "rule" : "hook",
          message: e.content,
          session_id: sessionId,
        });
      const out = claude.messages(e).flatMap((m) => shaped(m as Record<string, unknown>, session));
      return [...before, ...out].map(tagged);
    },
    result(r, ms) {
      const base = claude.result(r, ms) as Record<string, unknown>;
      const { result, agentmd_outcome, ...rest } = base;
      const failed = r.outcome !== "done";
      return tagged({
        ...rest,
        ...(failed ? { errors: [r.message ?? `the run ended: ${r.outcome}`], agentmd_outcome } : { result }),
        stop_reason: stopReason,
        modelUsage: {},
        terminal_reason: terminalReason(r),
      });
    },
  };
}

function terminalReason(r: RunResult): string {
  switch (r.outcome) {
    case "done":
      return "completed";
    case "limit":
      return "max_turns";
    case "aborted":
      return "aborted_tools";
    default:
      return r.outcome;
  }
}

/** `init` with what the SDK reads of it; an assistant message split into one per content block. */
function shaped(m: Record<string, unknown>, session: TurnSession): object[] {
  if (m.type === "system" && m.subtype === "init")
    return [
      {
        ...m,
        // The project's servers (as the run started them), then the program's own.
        mcp_servers: [...((m.mcp_servers as unknown[] | undefined) ?? []), ...session.mcpServers],
        claude_code_version: VERSION,
        skills: [],
      },
    ];
  if (m.type !== "assistant") return [m];
  const message = m.message as { content: readonly unknown[] };
  if (message.content.length <= 1) return [m];
  return message.content.map((block) => ({ ...m, message: { ...message, content: [block] } }));
}

/**
 * The Messages API's stream events of each response of the main agent, as `stream_event`s:
 * `message_start` (its `id`, as the `assistant` messages carry it, its `model` and `usage`), one
 * text block whose deltas are the run's `message_delta`s, and `message_delta` with the response's
 * `stop_reason` and whole usage. Tool inputs come whole, in the `assistant` message. A response is
 * known to have begun at its first text (or, with none, at its end): its input is not counted yet,
 * so `message_start`'s usage is zero and `message_delta`'s says all of it, as the API's
 * cumulative counts.
 */
function partialMessages(): (e: RunEvent, sessionId: string) => object[] {
  let open = false;
  let text = false;
  let model = "";
  let turn = 0;
  let usage: Usage | undefined;
  const wrap = (event: object, sessionId: string) => ({
    type: "stream_event",
    event,
    session_id: sessionId,
    parent_tool_use_id: null,
  });
  const start = (runId: string) => {
    open = true;
    return [
      {
        type: "message_start",
        message: {
          id: messageId(runId, turn),
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...ZERO_USAGE },
        },
      },
    ];
  };
  return (e, sessionId) => {
    if (e.type === "run_start") model = e.model;
    if (e.type === "turn_start") {
      turn = e.turn;
      usage = undefined;
    }
    if (e.type === "usage") usage = e.usage;
    if (e.type === "message_delta") {
      const begin = open ? [] : start(e.runId);
      const block = text
        ? []
        : [{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }];
      text = true;
      return [
        ...begin,
        ...block,
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: e.text } },
      ].map((x) => wrap(x, sessionId));
    }
    if (e.type === "message_end") {
      const begin = open ? [] : start(e.runId);
      const stop = text ? [{ type: "content_block_stop", index: 0 }] : [];
      open = false;
      text = false;
      return [
        ...begin,
        ...stop,
        {
          type: "message_delta",
          delta: { stop_reason: e.stopReason, stop_sequence: null },
          usage: usage ?? ZERO_USAGE,
        },
        { type: "message_stop" },
      ].map((x) => wrap(x, sessionId));
    }
    return [];
  };
}
