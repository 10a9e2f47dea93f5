import { HOOK_EVENTS } from "../../definitions/hook-events.js";
import type { FunctionHook, HookPayload, HookReply, Hooks } from "../../loop/hooks.js";
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
    ...(m.timeout !== undefined && { timeout: m.timeout }),
    origin: `SDK callback ${id}`,
    // Claude Code's hook JSON, read by the dispatcher as every hook's answer is read; the
    // dispatcher's signal ends the request at the hook's timeout or the run's abort.
    run: async (payload, { signal }) =>
      (await channel.request(
        {
          subtype: "hook_callback",
          callback_id: id,
          input: hookInput(payload, permissionMode()),
          tool_use_id: payload.tool_use_id,
        },
        signal,
      )) as HookReply,
  };
}

/** What the SDK's callback is given: Claude Code's hook input (agentmd's `run_id` left out). */
function hookInput(p: HookPayload, permissionMode: string): Record<string, unknown> {
  const { run_id: _run, ...fields } = p;
  return { ...fields, permission_mode: permissionMode };
}
