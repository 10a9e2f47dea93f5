import { hookContext } from "./execute-call.js";
import { fireHooks } from "./hooks.js";
import { baseOf, type Ending, type LoopConfig, type LoopState } from "./loop-state.js";

/**
 * The model stopped: the Stop hooks (SubagentStop in a run below the top, between its last request
 * and its caller's next) may make the run go on. A block sends one more request carrying its
 * reason, and the next Stop hook is told `stop_hook_active: true`; a hook that fails fails closed:
 * the run does not end as done but as an error that names the hook. Undefined: go on.
 */
export async function beforeStop(cfg: LoopConfig, state: LoopState): Promise<Ending | undefined> {
  const { call } = cfg;
  const sub = call.depth > 0;
  const event = sub ? "SubagentStop" : "Stop";
  const fired = await fireHooks(
    call.state.hooks,
    event,
    {
      stop_hook_active: state.stopHookActive,
      ...(sub && { agent_type: call.agent ?? "", agent_id: call.runId }),
    },
    hookContext(call),
  );
  if (call.signal.aborted) return { outcome: "aborted" };
  if (fired.kind === "failed") {
    const message = `the ${event} hook failed (${fired.reason}), so the run does not end as done`;
    call.emit({ ...baseOf(cfg), type: "error", code: "hook_failed", message });
    return { outcome: "error", message };
  }
  if (fired.kind !== "block") return { outcome: "done" };
  state.stopHookActive = true;
  const content = `${event} hook feedback: ${fired.reason}`;
  call.emit({ ...baseOf(cfg), type: "user_message", content });
  state.messages.push({ role: "user", content });
  return undefined;
}
