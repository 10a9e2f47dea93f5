import type { RunErrorCode } from "../loop/events.js";
import type { CallContext } from "../loop/execute-call.js";
import { hookContext } from "../loop/execute-call.js";
import { fireHooks } from "../loop/hooks.js";
import type { Content, RunIo, RunSpec } from "./run-types.js";

export type Hooked =
  | { readonly ok: true; readonly content: Content }
  | { readonly ok: false; readonly code: RunErrorCode; readonly message: string };

/**
 * A run's prompt, before it is sent: a user's (depth 0) is judged by the UserPromptSubmit hooks,
 * which get what was typed; a child run's by the SubagentStart hooks (`agent_type`: its agent). A
 * block (exit 2, `decision: block`, `continue: false`) sends no request and says the reason; a hook
 * that fails fails closed the same way. What the hooks add for the model (and the session's
 * SessionStart context, on the session's first run) goes beside the prompt, before it.
 */
export async function promptHooks(
  spec: RunSpec,
  io: RunIo,
  call: CallContext,
  prompt: Content,
): Promise<Hooked> {
  const top = spec.depth === 0;
  const event = top ? "UserPromptSubmit" : "SubagentStart";
  const fields = top
    ? { prompt: io.typed ?? textOf(prompt) }
    : { agent_type: spec.agent, agent_id: call.runId };
  const fired = await fireHooks(call.state.hooks, event, fields, hookContext(call));
  if (fired.kind === "failed")
    return {
      ok: false,
      code: "hook_failed",
      message: `the ${event} hook failed (${fired.reason}), so the prompt was not sent`,
    };
  if (fired.kind === "block" || fired.kind === "halt")
    return { ok: false, code: "blocked_by_hook", message: `blocked by a ${event} hook: ${fired.reason}` };
  const context = [...(io.context ?? []), ...fired.context];
  if (context.length === 0) return { ok: true, content: prompt };
  const said = { type: "text" as const, text: `<hook-context>\n${context.join("\n\n")}\n</hook-context>` };
  const blocks = typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : prompt;
  return { ok: true, content: [said, ...blocks] };
}

const textOf = (c: Content): string =>
  typeof c === "string" ? c : c.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
