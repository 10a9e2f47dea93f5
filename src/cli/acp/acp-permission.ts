import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk";
import type { Approver } from "../../invocation/approvals.js";
import type { ApprovalAnswer } from "../../loop/execute-call.js";
import { toolCallOf } from "./acp-updates.js";

/** The answers an editor is offered: the REPL's y, a and n. */
const OPTIONS: readonly PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow calls like this for the session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

export interface PermissionTarget {
  readonly client: () => AgentContext | undefined;
  readonly sessionId: string;
  readonly cwd: string;
  /** The running turn's signal: its cancel answers an open question `deny`. */
  readonly signal: () => AbortSignal | undefined;
}

/**
 * A call that needs a user's approval, asked as `session/request_permission`. Only calls the lists
 * allow ever reach it (the executor refuses the others without asking): the editor approves within
 * the lists, never beyond them. "Always" is the REPL's: calls like this one, for the session.
 */
export function acpApprover(target: PermissionTarget): Approver {
  return async (req): Promise<ApprovalAnswer> => {
    const client = target.client();
    const signal = target.signal();
    if (!client || signal?.aborted) return { kind: "deny", reason: "the turn was cancelled" };
    const call = toolCallOf(req.callId ?? "", req.call.tool, req.call.input, target.cwd);
    const { sessionUpdate: _, ...toolCall } = call as Extract<typeof call, { sessionUpdate: "tool_call" }>;
    const answer = await client
      .request(
        "session/request_permission",
        { sessionId: target.sessionId, toolCall, options: [...OPTIONS] },
        ...(signal ? [{ cancellationSignal: signal, stopWaitingOnCancel: true }] : []),
      )
      .catch(() => undefined);
    const outcome = answer?.outcome;
    if (!outcome || outcome.outcome === "cancelled")
      return { kind: "deny", reason: "the question was cancelled" };
    switch (outcome.optionId) {
      case "allow_once":
        return { kind: "once" };
      case "allow_always":
        return { kind: "session" };
      default:
        return { kind: "deny", reason: `the user rejected it (${req.reason})` };
    }
  };
}
