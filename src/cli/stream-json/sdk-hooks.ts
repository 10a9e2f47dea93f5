import { HOOK_EVENTS } from "../../definitions/hook-events.js";
import type { FunctionHook, HookPayload, HookReply, Hooks } from "../../loop/hooks.js";
import { HOOK_TIMEOUT_S } from "../../shared/defaults.js";
import type { SdkChannel } from "./sdk-channel.js";

/**
 * The Agent SDK's hooks (callbacks in the program, named in `initialize`) as one more kind of
 * hook beside command hooks: each is a function hook whose run asks the SDK (`hook_callback`) and
 * reads its answer as a command hook's JSON is read. They run where every hook runs, after the
 * lists have judged the call, so they can only narrow: a `deny`/`block`/`continue: false` stops the
 * call, `ask` asks the approver, `allow` spares the question (never beyond the lists), an
 * `updatedInput` is a new call the lists judge again. A callback that fails or times out blocks
 * what its event guards (hooks fail closed).
 */
export interface SdkHookMatcher {
  readonly matcher?: string;
  readonly hookCallbackIds: readonly string[];
  readonly timeout?: number;
}

/** The events the hook dispatcher fires; others are said once and not registered. */
const FIRED: readonly string[] = HOOK_EVENTS;

export function sdkHooks(
  given: Readonly<Record<string, readonly SdkHookMatcher[]>> | undefined,
  channel: SdkChannel,
  context: { permissionMode(): string; warn(message: string): void },
): Hooks {
  const out: Record<string, FunctionHook[]> = {};
  for (const [event, matchers] of Object.entries(given ?? {})) {
    if (!FIRED.includes(event)) {
      context.warn(`the SDK's ${event} hooks are not run by this version of agentmd`);
      continue;
    }
    out[event] = matchers.flatMap((m) =>
      m.hookCallbackIds.map((id) => callbackHook(id, m, channel, context.permissionMode)),
    );
  }
  return out as Hooks;
}

function callbackHook(
  id: string,
  m: SdkHookMatcher,
  channel: SdkChannel,
  permissionMode: () => string,
): FunctionHook {
  return {
    ...(m.matcher !== undefined && { matcher: m.matcher }),
    run: async (payload) => {
      const timeout = m.timeout ?? HOOK_TIMEOUT_S;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeout * 1000);
      try {
        const reply = await channel.request(
          {
            subtype: "hook_callback",
            callback_id: id,
            input: hookInput(payload, permissionMode()),
            tool_use_id: payload.tool_use_id,
          },
          controller.signal,
        );
        return readReply(reply, payload.hook_event_name);
      } catch (e) {
        if (controller.signal.aborted)
          throw new Error(`the SDK's hook ${id} did not answer within ${timeout} s`);
        throw new Error(`the SDK's hook ${id} failed: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** What the SDK's callback is given: Claude Code's hook input (agentmd's `run_id` left out). */
function hookInput(p: HookPayload, permissionMode: string): Record<string, unknown> {
  const { run_id: _run, ...fields } = p;
  return { ...fields, permission_mode: permissionMode };
}

/** A callback's answer (Claude Code's hook JSON output) as a hook's reply. */
export function readReply(r: Record<string, unknown>, event: string): HookReply {
  const specific = (typeof r.hookSpecificOutput === "object" && r.hookSpecificOutput) || {};
  const s = specific as Record<string, unknown>;
  const decision = s.permissionDecision ?? r.decision;
  const reason = String(s.permissionDecisionReason ?? r.reason ?? r.stopReason ?? "").trim();
  if (decision === "deny" || decision === "block") return { block: reason || "denied by the SDK's hook" };
  if (r.continue === false) return { block: reason || "the SDK's hook stopped the call" };
  const updated = s.updatedInput;
  if (updated !== undefined && event === "PreToolUse") {
    if (typeof updated !== "object" || updated === null || Array.isArray(updated))
      throw new Error("the SDK's hook gave an updatedInput that is not an object (the call was not run)");
    return { updatedInput: updated as Record<string, unknown> };
  }
  const context = typeof s.additionalContext === "string" ? s.additionalContext : undefined;
  if (decision === "ask") return { ask: reason || "the SDK's hook asks for approval" };
  if (decision === "allow" || decision === "approve") return { allow: true, ...(context && { context }) };
  return context ? { context } : undefined;
}
