import type { RunEvent, RunResult } from "../../loop/events.js";
import { asksForSignIn } from "../../mcp/oauth-provider.js";
import type { Usage } from "../../model/models.js";

/**
 * `--output-format json|stream-json` in Claude Code's message shapes, so a script written for
 * `claude -p --output-format stream-json` reads agentmd the same way: one `system` `init` message,
 * then `assistant` messages (the model's turns) and `user` messages (the tool results sent back),
 * each with `parent_tool_use_id` (the Task call a subagent's turn belongs to, else null), and one
 * `result` message at the end. `json` prints the `result` message alone.
 */
export interface ClaudeSession {
  readonly cwd: string;
  readonly permissionMode: string;
  readonly apiKeySource: string;
  readonly slashCommands: readonly string[];
  readonly agents: readonly string[];
  /**
   * Where a top run's warning that a server needs a sign-in (`agentmd mcp login`) is said, beside
   * `init`'s `needs-auth`: these shapes carry no warnings, and a script reads only stdout.
   */
  readonly signInNeeded?: (message: string) => void;
}

export interface ClaudeOutput {
  /** The messages an event becomes (none for most). */
  messages(event: RunEvent): object[];
  /** The `result` message of a finished run. */
  result(result: RunResult, durationMs: number): object;
}

export function claudeOutput(session: ClaudeSession): ClaudeOutput {
  const runs = new Map<string, { model: string; parentToolUseId: string | null }>();
  const usage = new Map<string, Usage>();
  const turnStarted = new Map<string, number>();
  const denials: { tool_name: string; tool_use_id: string; tool_input: unknown }[] = [];
  const inputs = new Map<string, unknown>();
  let apiMs = 0;
  let initSent = false;
  let sessionId = "";
  return {
    messages(e) {
      const parent = runs.get(e.runId)?.parentToolUseId ?? null;
      switch (e.type) {
        case "run_start": {
          runs.set(e.runId, { model: e.model, parentToolUseId: e.parentToolUseId ?? null });
          sessionId = e.sessionId;
          if (initSent || e.depth > 0) return [];
          initSent = true;
          return [
            {
              type: "system",
              subtype: "init",
              cwd: session.cwd,
              session_id: e.sessionId,
              tools: e.tools,
              mcp_servers: (e.mcpServers ?? []).map(({ name, status }) => ({ name, status })),
              model: e.model,
              permissionMode: session.permissionMode,
              slash_commands: session.slashCommands,
              agents: session.agents,
              apiKeySource: session.apiKeySource,
              output_style: "default",
            },
          ];
        }
        case "turn_start":
          turnStarted.set(e.runId, performance.now());
          return [];
        case "warning":
          if (e.depth === 0 && asksForSignIn(e.message)) session.signInNeeded?.(e.message);
          return [];
        case "usage":
          usage.set(e.runId, e.usage);
          return [];
        case "tool_start":
          inputs.set(e.id, e.input);
          return [];
        case "tool_end":
          if (e.decision === "denied" || e.decision === "blocked-by-hook")
            denials.push({ tool_name: e.name, tool_use_id: e.id, tool_input: inputs.get(e.id) ?? {} });
          return [];
        case "message_end": {
          const started = turnStarted.get(e.runId);
          if (started !== undefined) apiMs += performance.now() - started;
          return [
            {
              type: "assistant",
              message: {
                id: messageId(e.runId, e.turn),
                type: "message",
                role: "assistant",
                model: runs.get(e.runId)?.model ?? "",
                content: e.content,
                stop_reason: e.stopReason,
                stop_sequence: null,
                usage: usage.get(e.runId) ?? null,
              },
              parent_tool_use_id: parent,
              session_id: sessionId,
            },
          ];
        }
        case "turn_end":
          if (e.toolResults.length === 0) return [];
          return [
            {
              type: "user",
              message: { role: "user", content: e.toolResults },
              parent_tool_use_id: parent,
              session_id: sessionId,
            },
          ];
        default:
          return [];
      }
    },
    result(r, durationMs) {
      const failed = r.outcome !== "done";
      return {
        type: "result",
        subtype: subtypeOf(r),
        is_error: failed,
        duration_ms: Math.round(durationMs),
        duration_api_ms: Math.round(apiMs),
        num_turns: r.turns,
        result: r.outcome === "done" ? r.text : (r.message ?? r.text),
        session_id: r.sessionId,
        total_cost_usd: r.costUnknown ? null : r.costUsd,
        usage: r.usage,
        permission_denials: denials,
        ...(r.structuredOutput !== undefined && { structured_output: r.structuredOutput }),
        ...(failed &&
          r.limit !== undefined &&
          r.limit !== "max_iterations" && { errors: [r.message ?? r.outcome] }),
        ...(failed && { agentmd_outcome: r.outcome }),
      };
    },
  };
}

/** A response's id in Claude Code's shapes: one per run and turn, shared by its messages. */
export const messageId = (runId: string, turn: number): string => `msg_${runId.replace(/^run-/, "")}_${turn}`;

/** The result's subtype, as Claude Code names how a run ended. */
function subtypeOf(r: RunResult): string {
  if (r.outcome === "done") return "success";
  if (r.outcome !== "limit") return "error_during_execution";
  if (r.limit === "max_budget_usd") return "error_max_budget_usd";
  if (r.limit === "max_structured_output_retries") return "error_max_structured_output_retries";
  return "error_max_turns";
}
