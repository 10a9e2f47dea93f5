import type { PermissionMode } from "../../definitions/settings.js";
import type { Content } from "../../invocation/run-types.js";
import type { Runner } from "../../invocation/runner.js";
import type { SlashCommand } from "../../invocation/slash-commands.js";
import type { RunEvent, RunResult } from "../../loop/events.js";

/**
 * One conversation with the main agent, whichever door it comes through (a terminal, stream-json,
 * an editor over ACP): its turns one at a time in one session, the running turn's cancel, the
 * permission mode, the commands a user may type. The runner does the work (the lists, approvals,
 * `/name args`); the driver keeps what a conversation carries from one turn to the next.
 */
export interface SessionDriver {
  readonly runner: Runner;
  /** The session's id: its transcript is `.agentmd/sessions/<id>.jsonl`. */
  readonly sessionId: string;
  /** Whether a turn runs now. */
  busy(): boolean;
  /**
   * A turn: `input` (a prompt, or `/name args` as typed in the REPL) runs in the session, each event
   * given to `onEvent` as it comes. Rejects with a SessionError when the session cannot be continued.
   */
  turn(input: Content, onEvent: (event: RunEvent) => void, options?: TurnOptions): Promise<RunResult>;
  /** The running turn's signal (aborted by `cancel`), or undefined between turns. */
  signal(): AbortSignal | undefined;
  /**
   * Stops the running turn (its running tool too); resolves once it has ended. The session goes on
   * with the next turn.
   */
  cancel(): Promise<void>;
  /** The mode now, and whether bypassPermissions may be chosen (the settings may turn it off). */
  modes(): { readonly current: PermissionMode; readonly available: readonly PermissionMode[] };
  /** Later calls are approved in `mode`, never beyond the lists. Throws a ConfigError when it is turned off. */
  setMode(mode: PermissionMode): void;
  /** The commands a user may type: the project's commands and skills, and the reachable servers' prompts. */
  commands(): Promise<SlashCommand[]>;
  /** Ends the session (its SessionEnd hooks), when a turn ran in it. Never rejects. */
  end(reason: string, onWarning?: (message: string) => void): Promise<void>;
}

export interface TurnOptions {
  /** The main agent's model for this turn (an id or alias), over the runner's. */
  readonly model?: string | undefined;
  /** A stop of the caller's own (a terminal's Ctrl-C), beside `cancel`. */
  readonly signal?: AbortSignal;
}

export interface DriverOptions {
  readonly sessionId: string;
  /** The session has turns already (a saved one being continued). */
  readonly resumed?: boolean;
  /** Run this subagent instead of the main agent. */
  readonly agent?: string;
}

export function driveSession(runner: Runner, options: DriverOptions): SessionDriver {
  let started = options.resumed === true;
  let current: AbortController | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const runTurn = async (
    input: Content,
    onEvent: (event: RunEvent) => void,
    turn: TurnOptions,
  ): Promise<RunResult> => {
    const controller = new AbortController();
    current = controller;
    try {
      const handle = runner.run(input, {
        signal: turn.signal ? AbortSignal.any([controller.signal, turn.signal]) : controller.signal,
        ...(turn.model && { model: turn.model }),
        ...(started ? { resume: options.sessionId } : { sessionId: options.sessionId }),
        ...(options.agent && { agent: options.agent }),
      });
      for await (const event of handle) onEvent(event);
      const result = await handle.result();
      started ||= result.transcript !== undefined;
      return result;
    } finally {
      if (current === controller) current = undefined;
    }
  };
  return {
    runner,
    sessionId: options.sessionId,
    busy: () => current !== undefined,
    turn(input, onEvent, options = {}) {
      const turn = runTurn(input, onEvent, options);
      running = turn.catch(() => {});
      return turn;
    },
    signal: () => current?.signal,
    cancel: () => {
      current?.abort();
      return running.then(() => {});
    },
    modes() {
      const { current: mode, bypass } = runner.permissionModes();
      const all: PermissionMode[] = ["default", "acceptEdits", "plan"];
      return { current: mode, available: bypass ? [...all, "bypassPermissions"] : all };
    },
    setMode: (mode) => runner.setPermissionMode(mode),
    commands: () => runner.slashCommands(),
    end: (reason, onWarning) =>
      started ? runner.endSession(options.sessionId, reason, onWarning) : Promise.resolve(),
  };
}
