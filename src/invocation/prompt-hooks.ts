import type { RunErrorCode } from "../loop/events.js";
import type { CallContext } from "../loop/execute-call.js";
import { hookContext } from "../loop/execute-call.js";
import { fireHooks } from "../loop/hooks.js";
import type { Content, Prompt, RunIo, RunSpec } from "./run-types.js";

export type Hooked =
  | { readonly ok: true; readonly context: readonly string[] }
  | { readonly ok: false; readonly code: RunErrorCode; readonly message: string };

/**
 * A run's prompt, before it is made ready and sent: a user's (depth 0) is judged by the
 * UserPromptSubmit hooks, which get what was typed; a child run's by the SubagentStart hooks
 * (`agent_type`: its agent). A block (exit 2, `decision: block`, `continue: false`) sends no
 * request and says the reason; a hook that fails fails closed the same way. What the hooks add for
 * the model (and the session's SessionStart context, on its first run) is `context`.
 */
export async function promptHooks(spec: RunSpec, io: RunIo, call: CallContext): Promise<Hooked> {
  const top = spec.depth === 0;
  const event = top ? "UserPromptSubmit" : "SubagentStart";
  const fields = top
    ? { prompt: io.typed ?? typedOf(spec.prompt) }
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
  return { ok: true, context: [...(io.context ?? []), ...fired.context] };
}

/** The prompt with what the hooks said for the model before it. */
export function withContext(prompt: Content, context: readonly string[]): Content {
  if (context.length === 0) return prompt;
  const said = { type: "text" as const, text: `<hook-context>\n${context.join("\n\n")}\n</hook-context>` };
  const blocks = typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : prompt;
  return [said, ...blocks];
}

/** What a user typed, as far as the prompt says: its text, or `/name args` for a body. */
function typedOf(p: Prompt): string {
  if (p.kind === "body") return `/${p.label.replace(/^\//, "")}${p.args ? ` ${p.args}` : ""}`;
  const c = p.content;
  return typeof c === "string" ? c : c.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}
