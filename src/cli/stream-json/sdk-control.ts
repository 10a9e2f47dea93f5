import { PERMISSION_MODES, type PermissionMode } from "../../definitions/settings.js";
import type { Runner } from "../../invocation/runner.js";
import { contextTokens } from "../../loop/auto-compact.js";
import type { Usage } from "../../model/models.js";
import { DEFAULT_CONTEXT_WINDOW } from "../../shared/defaults.js";
import { ConfigError } from "../../shared/errors.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { AUTO_MODE, autoAsDefault } from "../flags/permission-flags.js";
import { answer, type SdkChannel, type SdkRequest } from "./sdk-channel.js";
import { rewindFilesRequest } from "./sdk-rewind.js";

/** What the control requests read and change while the session runs. */
export interface Live {
  mode: string;
  turn?: AbortController;
  runner?: Runner;
  /** Says the session's state (`system/session_state_changed`), when the program asked for it. */
  state: (state: SessionState) => void;
  /** The main agent's model in the running session. */
  model?: string;
  /** The model and usage of the main agent's last response: what `get_context_usage` reports. */
  last?: { model: string; usage: Usage };
  /** Whether `auto` was said to be `default` on stderr already (it is said once). */
  autoSaid?: boolean;
  /** The session the turns go on (for `rewind_files`), once known. */
  session?: string;
  /** The SDK's `enableFileCheckpointing`. */
  checkpoints: boolean;
}

export type SessionState = "running" | "requires_action" | "idle";

const on = (v: string | undefined) => v !== undefined && /^(?:1|true|yes|on)$/i.test(v.trim());

/**
 * `system/session_state_changed`, as Claude Code sends it: `running` when a turn starts,
 * `requires_action` while a question waits for its answer, `idle` after the turn's result. Sent
 * when the program asks (`CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS`, as claude-agent-acp does); for
 * the Agent SDK alone (`CLAUDE_CODE_SDK_READS_SESSION_STATE`) marked `sdk_host_only`, which the
 * SDK reads to know when a run is over and passes on to no one.
 */
export function sessionStates(
  env: Readonly<Record<string, string | undefined>>,
  channel: Pick<SdkChannel, "send">,
): (state: SessionState) => void {
  const emit = on(env.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS);
  if (!emit && !on(env.CLAUDE_CODE_SDK_READS_SESSION_STATE)) return () => {};
  let last: SessionState | undefined;
  return (state) => {
    if (state === last) return;
    last = state;
    channel.send({
      type: "system",
      subtype: "session_state_changed",
      state,
      ...(!emit && { sdk_host_only: true }),
      uuid: nodeCrypto().randomUUID(),
    });
  };
}

type Handler = (r: SdkRequest, live: Live, stderr: { write(s: string): unknown }) => object | Error;

/**
 * The SDK's requests besides initialize: `interrupt`, `set_permission_mode`, and what
 * claude-agent-acp asks of a session (`get_settings`, `get_context_usage`, `generate_session_title`,
 * `cancel_async_message`); others are refused, naming the request.
 */
export function control(
  r: SdkRequest,
  channel: SdkChannel,
  live: Live,
  stderr: { write(s: string): unknown },
): void {
  if (r.request.subtype === "rewind_files") {
    rewindFilesRequest(r, channel, live).catch((e: Error) => answer(channel, r.request_id, e));
    return;
  }
  const handler = HANDLERS[r.request.subtype];
  const response = handler
    ? handler(r, live, stderr)
    : new Error(`agentmd does not support the '${r.request.subtype}' request`);
  if (!(response instanceof Error) && r.request.subtype === "set_permission_mode")
    channel.send({ type: "system", subtype: "status", status: null, permissionMode: live.mode });
  answer(channel, r.request_id, response);
}

const HANDLERS: Readonly<Record<string, Handler>> = {
  interrupt: (_r, live) => {
    live.turn?.abort();
    return { still_queued: [] };
  },
  set_permission_mode: setMode,
  get_settings: (_r, live) => ({
    effective: { permissions: { defaultMode: live.mode }, ...(live.runner && { model: live.runner.model }) },
    sources: [],
    applied: {
      model: live.last?.model ?? live.runner?.model ?? null,
      effort: null,
      permissionMode: live.mode,
    },
  }),
  get_context_usage: (_r, live) => contextUsage(live),
  generate_session_title: (r) => ({ title: titleOf(String(r.request.description ?? "")) }),
  // Every user message is taken as it comes and answered in order: none waits in a queue to be withdrawn.
  cancel_async_message: () => ({ cancelled: false }),
};

function setMode(r: SdkRequest, live: Live, stderr: { write(s: string): unknown }): object | Error {
  const asked = String(r.request.mode);
  let mode = asked;
  if (asked === AUTO_MODE) {
    mode = "default";
    if (!live.autoSaid) autoAsDefault(stderr);
    live.autoSaid = true;
  }
  if (mode !== "dontAsk" && !(PERMISSION_MODES as readonly string[]).includes(mode))
    return new Error(`'${asked}' is not a permission mode agentmd has`);
  try {
    live.runner?.setPermissionMode(mode === "dontAsk" ? "default" : (mode as PermissionMode));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e;
  }
  live.mode = mode;
  return { mode };
}

/** The context window's use at the last response: the conversation, and what is left. */
function contextUsage(live: Live): object {
  const used = live.last ? contextTokens(live.last.usage) : 0;
  const max = DEFAULT_CONTEXT_WINDOW;
  return {
    categories: [
      { id: "messages", name: "Messages", tokens: used, color: "purple", kind: "used" },
      { id: "free_space", name: "Free space", tokens: Math.max(0, max - used), color: "gray", kind: "free" },
    ],
    totalTokens: used,
    maxTokens: max,
    rawMaxTokens: max,
    percentage: Math.round((used / max) * 1000) / 10,
    gridRows: [],
    model: live.last?.model ?? live.runner?.model ?? "",
    memoryFiles: [],
    mcpTools: [],
    agents: [],
  };
}

/** A session's title from what it is about: its first line, cut at a word near 60 characters. */
export function titleOf(description: string): string {
  const line = description.replace(/\s+/g, " ").trim();
  if (line.length <= 60) return line || "Untitled session";
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
