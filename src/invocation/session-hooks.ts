import type { EventSink, RunErrorCode } from "../loop/events.js";
import { hookTrace } from "../loop/hook-trace.js";
import { type Fired, fireHooks, type HookContext } from "../loop/hooks.js";
import type { Core } from "./core.js";

/** A session's hooks, as the runner fires them: its first run's start, its end, a manual compaction. */
export interface SessionHooks {
  /**
   * The SessionStart hooks, on a session's first run in this runner (`source`: `resume` for one
   * continued, `compact` for one a compaction made, `clear` right after `end(…, "clear")`,
   * `startup` otherwise). Undefined when the session had started already.
   */
  start(s: SessionAt, resume: boolean): Promise<Fired | undefined>;
  /** The SessionEnd hooks of a session that started here (non-blocking: a failure is a warning). */
  end(sessionId: string, reason: string, warn?: (message: string) => void): Promise<void>;
  /** The session ids that started and have not ended. */
  open(): string[];
  /** The PreCompact hooks of `/compact`; marks the session it makes as started by a compaction. */
  compacting(s: SessionAt, instructions: string | undefined): Promise<Fired>;
  compacted(sessionId: string): void;
}

export interface SessionAt {
  readonly sessionId: string;
  readonly transcriptPath?: string;
  readonly emit: EventSink;
  readonly signal: AbortSignal;
  /** Set when the run is traced: the `traceparent` of a span its trace made, by its id (hook spans). */
  readonly traceparent?: (id: string) => string | undefined;
}

export function sessionHooks(core: Core): SessionHooks {
  const live = new Map<string, string | undefined>();
  const fromCompaction = new Set<string>();
  let cleared = false;
  const ctx = (s: SessionAt): HookContext => ({
    session: {
      sessionId: s.sessionId,
      cwd: core.cwd,
      runId: "",
      permissionMode: core.permissionMode,
      ...(s.transcriptPath !== undefined && { transcriptPath: s.transcriptPath }),
    },
    warn: (message) => s.emit({ runId: "", depth: 0, type: "warning", message }),
    signal: s.signal,
    env: core.env,
    ...(s.traceparent && {
      trace: hookTrace({ runId: "", depth: 0, emit: s.emit, traceparent: s.traceparent }),
    }),
  });
  return {
    async start(s, resume) {
      // A server's question during this run is told to the hooks as this session's.
      core.elicitation.at((signal) => ({ ...ctx(s), signal: AbortSignal.any([s.signal, signal]) }));
      if (live.has(s.sessionId)) return undefined;
      live.set(s.sessionId, s.transcriptPath);
      const source = fromCompaction.delete(s.sessionId)
        ? "compact"
        : resume
          ? "resume"
          : cleared
            ? "clear"
            : "startup";
      cleared = false;
      return fireHooks(core.hooks, "SessionStart", { source }, ctx(s));
    },
    async end(sessionId, reason, warn = () => {}) {
      if (!live.has(sessionId)) return;
      const transcriptPath = live.get(sessionId);
      live.delete(sessionId);
      if (reason === "clear") cleared = true;
      const at = { sessionId, emit: () => {}, signal: new AbortController().signal };
      const c = ctx({ ...at, ...(transcriptPath !== undefined && { transcriptPath }) });
      await fireHooks(core.hooks, "SessionEnd", { reason }, { ...c, warn });
    },
    open: () => [...live.keys()],
    compacting: (s, instructions) =>
      fireHooks(
        core.hooks,
        "PreCompact",
        { trigger: "manual", custom_instructions: instructions ?? "" },
        ctx(s),
      ),
    compacted: (sessionId) => void fromCompaction.add(sessionId),
  };
}

/** A SessionStart hook that blocked or failed: the session does not start (fail closed). */
export function sessionRefusal(
  started: Fired | undefined,
): { code: RunErrorCode; message: string } | undefined {
  if (started?.kind === "failed")
    return {
      code: "hook_failed",
      message: `the SessionStart hook failed (${started.reason}), so the session did not start`,
    };
  if (started?.kind === "block" || started?.kind === "halt")
    return { code: "blocked_by_hook", message: `blocked by a SessionStart hook: ${started.reason}` };
  return undefined;
}
