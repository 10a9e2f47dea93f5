import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { SubagentInput } from "../../definitions/types.js";
import type { Approver } from "../../invocation/approvals.js";
import type { ApprovalAnswer } from "../../loop/execute-call.js";
import type { SdkChannel } from "./sdk-channel.js";
import type { SdkHookMatcher } from "./sdk-hooks.js";

/** The `initialize` request's fields agentmd reads (sdk.d.ts: the SDK's initialize config). */
export interface SdkInitialize {
  readonly systemPrompt?: string | readonly string[];
  readonly appendSystemPrompt?: string;
  readonly agents?: Readonly<Record<string, SdkAgent>>;
  readonly hooks?: Readonly<Record<string, readonly SdkHookMatcher[]>>;
  readonly sdkMcpServers?: readonly string[];
  readonly sdkMcpServerManifests?: Readonly<Record<string, { toolsListResult?: { tools?: McpTool[] } }>>;
  /** The program's settings per server: `timeout` (milliseconds a call may take). */
  readonly sdkMcpServerConfigs?: Readonly<Record<string, { readonly timeout?: unknown } | undefined>>;
}

/** An agent defined in code (`options.agents`). */
export interface SdkAgent {
  readonly description: string;
  readonly prompt: string;
  readonly tools?: readonly string[];
  readonly disallowedTools?: readonly string[];
  readonly model?: string;
  /** A level (`high`), or a number, which agentmd does not take: the agent is refused saying so. */
  readonly effort?: string | number;
}

/**
 * `systemPrompt`: a string stands instead of agent.md's body (the lists still bind); none (the SDK
 * sends `[""]`) and the `claude_code` preset keep the project's own prompt; the preset's `append`
 * comes after everything else.
 */
export function systemPromptOf(init: SdkInitialize): { replace?: string; append?: string } {
  const given = init.systemPrompt;
  const text = (Array.isArray(given) ? given.join("\n\n") : ((given as string | undefined) ?? "")).trim();
  return {
    ...(text !== "" && { replace: text }),
    ...(init.appendSystemPrompt && { append: init.appendSystemPrompt }),
  };
}

/**
 * Agents defined in code as subagents: the `prompt` is the body, `tools` the list (caller ∩ callee
 * as for a file's subagent; without one it has its caller's), `model: inherit` the caller's.
 */
export function agentsOf(init: SdkInitialize): SubagentInput[] {
  return Object.entries(init.agents ?? {}).map(([name, a]) => ({
    name,
    description: a.description,
    body: a.prompt,
    ...(a.tools && { tools: a.tools }),
    ...(a.disallowedTools && { disallowedTools: a.disallowedTools }),
    ...(a.model && a.model !== "inherit" && { model: a.model }),
    ...(a.effort !== undefined && { effort: a.effort as SubagentInput["effort"] }),
  }));
}

/**
 * `canUseTool` (`--permission-prompt-tool stdio`): a call that needs approval is asked over the
 * pipe. `allow` runs it (with `updatedInput`, as the program changed it: judged again by the
 * lists); `deny` refuses it with the program's message, and `interrupt: true` ends the turn too.
 * In dontAsk mode nothing is asked: the call is refused.
 */
export function sdkApprover(
  channel: SdkChannel,
  turn: {
    signal(): AbortSignal | undefined;
    interrupt(): void;
    mode(): string;
    /** Told when a question goes out (true) and when its answer (or none) has come (false). */
    asking?(waiting: boolean): void;
  },
): Approver {
  return async (req): Promise<ApprovalAnswer> => {
    if (turn.mode() === "dontAsk")
      return { kind: "deny", reason: "it is not pre-approved, and the session is in dontAsk mode" };
    const input = req.call.input as Record<string, unknown>;
    turn.asking?.(true);
    const r = await channel
      .request(
        {
          subtype: "can_use_tool",
          tool_name: req.call.tool,
          display_name: req.call.tool,
          input,
          tool_use_id: req.callId ?? "",
          description: req.reason,
          permission_suggestions: [],
          ...(req.depth > 0 && { agent_id: req.agent }),
        },
        turn.signal(),
      )
      .finally(() => turn.asking?.(false));
    if (r.behavior === "allow") {
      const changed = r.updatedInput;
      return typeof changed === "object" && changed !== null && !Array.isArray(changed)
        ? { kind: "once", input: changed as Record<string, unknown> }
        : { kind: "once" };
    }
    if (r.interrupt === true) turn.interrupt();
    const message = typeof r.message === "string" ? r.message.trim() : "";
    return { kind: "deny", ...(message && { reason: message }) };
  };
}
