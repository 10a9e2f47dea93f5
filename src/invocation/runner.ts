import type { PermissionMode } from "../definitions/settings.js";
import type { Definition, Diagnostic } from "../definitions/types.js";
import { type Budget, budgetBelow, rootBudget } from "../loop/budget.js";
import type { TurnCheckpoint } from "../loop/checkpoints.js";
import { EventStream } from "../loop/event-stream.js";
import type { EventSink, RunEvent, RunResult } from "../loop/events.js";
import {
  checkSessionId,
  fileTranscripts,
  newSessionId,
  sessionsDir,
  type TranscriptStore,
} from "../loop/transcript.js";
import { isModel } from "../model/model.js";
import { recordInput } from "../model/record-replay.js";
import { ConfigError } from "../shared/errors.js";
import type { ToolRegistry } from "../tools/registry.js";
import { openTracing } from "../tracing/tracing.js";
import { userCaller } from "./callers.js";
import { type Compacted, type CompactOptions, compactSession } from "./compact-session.js";
import { type Core, createCore } from "./core.js";
import { slashNames } from "./find-invocable.js";
import { isMcpPromptName, mcpPrompt } from "./mcp-prompt.js";
import { parseLine } from "./parse-line.js";
import { prepareRun } from "./prepare-run.js";
import {
  type PromptTurn,
  promptTurns,
  type RewindReport,
  type RewindRequest,
  rewindSession,
  topStart,
  turnCheckpoint,
} from "./rewind-session.js";
import type { Content, RunIo, RunOut, RunRequest } from "./run-types.js";
import type { RunnerOptions } from "./runner-options.js";
import { sessionHooks, sessionRefusal } from "./session-hooks.js";
import { resumed } from "./session-reads.js";
import { readyPromptNames, type SlashCommand, slashCommands } from "./slash-commands.js";

export type { Compacted, CompactOptions } from "./compact-session.js";
export type { PromptTurn, RewindReport, RewindRequest } from "./rewind-session.js";

import { endBeforeStart, newRunId, startRun } from "./start-run.js";

export {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TOKENS,
} from "../shared/defaults.js";
export type { RunnerOptions } from "./runner-options.js";
export type { SlashCommand } from "./slash-commands.js";

export interface RunOptions {
  readonly signal?: AbortSignal;
  /** Continue this session: its conversation is sent again, and its transcript extended. */
  readonly resume?: string;
  /**
   * With `resume`: pick up a run that was interrupted (a crash, Ctrl-C, a killed worker) where its
   * transcript ends. When its conversation ends with a user turn (the prompt, or tool results), it
   * goes on from there and `input` is not sent again; otherwise `input` starts a new turn.
   */
  readonly continue?: boolean;
  /** The id of a new session (default: a fresh one), for a caller that must find it again. */
  readonly sessionId?: string;
  /** Run this subagent instead of the main agent (its list is the main agent's ∩ its own). */
  readonly agent?: string;
  /** The main agent's model for this run (an id or alias), over the runner's. */
  readonly model?: string;
  /** With tracing on: the W3C `traceparent` the run's trace belongs under (a queue's job carries one). */
  readonly traceparent?: string;
  /**
   * The budget this run's session spends from, over the runner's (a queue batch's, for all its
   * items together: each worker's runner serves many batches).
   */
  readonly budget?: Budget;
  /** The id the caller gave this prompt (the Agent SDK's user message uuid): a rewind may name it. */
  readonly promptId?: string;
}

/**
 * A running (or finished) run. Iterate it for its events: any number of readers, each from the
 * moment it starts (a reader that starts at once sees every event); `break` ends that reader alone.
 * `result()` resolves when the run ends; nothing is kept for a handle nobody iterates.
 */
export interface RunHandle extends AsyncIterable<RunEvent> {
  readonly sessionId: string;
  result(): Promise<RunResult>;
}

export interface Runner {
  readonly definitions: readonly Definition[];
  readonly diagnostics: readonly Diagnostic[];
  readonly registry: ToolRegistry;
  /** The main agent's model id (the option, ANTHROPIC_MODEL, agent.md, or the default). */
  readonly model: string;
  /** The project folder: its sessions are in `.agentmd/sessions/`. */
  readonly projectDir: string;
  /** A prompt for the main agent, or `/name args` for a command or skill, as typed in the REPL. */
  run(input: Content, options?: RunOptions): RunHandle;
  /** `/name args`: a command or skill, exactly as a user typing it. */
  invoke(line: string, options?: RunOptions): RunHandle;
  /** The names a user may type after `/`, sorted: commands, skills, running servers' prompts. */
  slashNames(): string[];
  /**
   * Every command, described (`/help`, the SDK's `initialize`, ACP): commands, skills, and the
   * prompts of the servers the session's list reaches (which starts them). Never rejects.
   */
  slashCommands(): Promise<SlashCommand[]>;
  /**
   * Claude Code's `setPermissionMode`: later calls of every run are approved in `mode` (never
   * beyond the lists). Throws a ConfigError for bypassPermissions when the settings turn it off.
   */
  setPermissionMode(mode: PermissionMode): void;
  /** The mode calls are approved in now, and whether the settings let bypassPermissions be chosen. */
  permissionModes(): { readonly current: PermissionMode; readonly bypass: boolean };
  /**
   * `/compact`: the session's conversation, summarised by the model, as the start of a new
   * session (its transcript begins with the summary). Contract: never rejects.
   */
  compact(sessionId: string, options?: CompactOptions): Promise<Compacted>;
  /** The prompts of a session's conversation, with the files each changed. Throws SessionError. */
  turns(sessionId: string): Promise<PromptTurn[]>;
  /** `/rewind`: the session's files, conversation or both, as just before a prompt. Throws SessionError. */
  rewind(sessionId: string, request: RewindRequest): Promise<RewindReport>;
  /**
   * Ends a session: its SessionEnd hooks run (`reason`: `clear`, `prompt_input_exit`, `other`, …;
   * a failing one is `onWarning`'s). A session that did not start here is left alone. Never rejects.
   */
  endSession(sessionId: string, reason: string, onWarning?: (message: string) => void): Promise<void>;
  /**
   * Ends the sessions still open (SessionEnd, reason `other`), then stops what the runs started and
   * outlives them: the MCP servers (a run's background commands end with the run itself). Later runs
   * start no server. Contract: idempotent, never rejects.
   */
  close(): Promise<void>;
}

/**
 * Builds a runner: loads the project once, registers the tools, prepares the model (live, recording
 * or replaying) and one global pool for every run of the process. Throws `ConfigError` for
 * configuration a user must fix (a broken agent.md, no API key).
 */
/**
 * Each session's budget (`maxBudgetUsd`), below the one given (a batch's, shared by its runners):
 * what its runs spend adds up, prompt after prompt.
 */
function sessionBudgets(options: RunnerOptions, cap: number | undefined) {
  const shared = options.budget ?? rootBudget();
  const budgets = new Map<string, Budget>();
  const of = (id: string, over?: Budget): Budget => {
    const b = budgets.get(id) ?? budgetBelow(over ?? shared, cap);
    budgets.set(id, b);
    return b;
  };
  // An ended session's budget goes with it: a batch of 10,000 sessions would otherwise keep them all.
  return Object.assign(of, { forget: (id: string) => budgets.delete(id) });
}

/** Later calls are approved in `mode` (the Agent SDK's `setPermissionMode`), unless the settings forbid it. */
function setPermissionMode(core: Core, mode: Parameters<Runner["setPermissionMode"]>[0]): void {
  if (mode === "bypassPermissions" && core.claude.bypassDisabled)
    throw new ConfigError(
      "bypassPermissions mode is turned off by the settings (permissions.disableBypassPermissionsMode)",
    );
  core.approval.setMode?.(mode);
}

/** The session's permission mode: set (as the Agent SDK's `setPermissionMode`), and told. */
function modeControl(core: Core): Pick<Runner, "setPermissionMode" | "permissionModes"> {
  let current = core.permissionMode as PermissionMode;
  return {
    setPermissionMode: (mode) => {
      setPermissionMode(core, mode);
      current = mode;
    },
    permissionModes: () => ({ current, bypass: !core.claude.bypassDisabled }),
  };
}

/**
 * Ends the sessions still open (their SessionEnd hooks), stops the MCP servers and sends the last
 * spans before the process exits (Ctrl-C and SIGTERM end runs, then close). Never rejects.
 */
function closeRunner(
  core: Core,
  sessions: ReturnType<typeof sessionHooks>,
  tracing: ReturnType<typeof openTracing>,
): Promise<void> {
  return Promise.all(sessions.open().map((id) => sessions.end(id, "other")))
    .then(() =>
      Promise.all([core.external.hub.close().catch(() => {}), tracing.then((t) => t.tracing?.shutdown())]),
    )
    .then(() => {})
    .catch(() => {});
}

/**
 * The run's signal, which also aborts when its transcript cannot be written and `required` (see
 * `RunnerOptions.transcript.required`); such a run's result is an error that says why.
 */
function unrecordedStop(required: boolean, given: AbortSignal | undefined) {
  const stop = new AbortController();
  let why: string | undefined;
  return {
    signal: given ? AbortSignal.any([given, stop.signal]) : stop.signal,
    stop: (message: string) => {
      if (!required || why !== undefined) return;
      why = message;
      stop.abort();
    },
    result: (r: RunResult): RunResult =>
      why === undefined || r.outcome === "done"
        ? r
        : { ...r, outcome: "error", message: `the run stopped: ${why}`, unrecorded: true },
  };
}

export function createRunner(options: RunnerOptions = {}): Runner {
  const core = createCore(options);
  const store =
    options.transcript?.store ?? fileTranscripts(options.transcript?.dir ?? sessionsDir(core.projectDir));
  let closed: Promise<void> | undefined;
  const sessions = sessionHooks(core);
  const budgetOf = sessionBudgets(options, core.settings.maxBudgetUsd);
  const tracing = openTracing(core.env); // OpenTelemetry is loaded only when tracing is on
  const run = lineRuns({ core, store, options, sessions, budgetOf, tracing });
  return {
    definitions: core.definitions,
    diagnostics: core.diagnostics,
    registry: core.catalog.registry,
    model: core.settings.model,
    projectDir: core.projectDir,
    run,
    invoke: (line, runOptions) => run(line.startsWith("/") ? line : `/${line}`, runOptions),
    slashNames: () => [...new Set([...slashNames(core), ...readyPromptNames(core)])].sort(),
    slashCommands: () => slashCommands(core),
    ...modeControl(core),
    compact: (sessionId, compactOptions = {}) =>
      compactSession(core, store, sessionId, compactOptions, sessions),
    turns: (sessionId) => promptTurns(store, checkSessionId(sessionId)),
    rewind: (sessionId, request) => rewindSession(core, store, checkSessionId(sessionId), request),
    endSession: (sessionId, reason, onWarning) => {
      budgetOf.forget(sessionId);
      return sessions.end(sessionId, reason, onWarning);
    },
    close: () => {
      closed ??= closeRunner(core, sessions, tracing);
      return closed;
    },
  };
}

/** What the runs of a runner share: its project, store, session hooks, budgets and tracing. */
interface LineRuns extends Pick<Opened, "core" | "store" | "options"> {
  readonly sessions: ReturnType<typeof sessionHooks>;
  readonly budgetOf: ReturnType<typeof sessionBudgets>;
  readonly tracing: ReturnType<typeof openTracing>;
}
type Opened = { readonly core: Core; readonly store: TranscriptStore; readonly options: RunnerOptions };

/** A runner's `run`: each line a run of its session, its events recorded, traced and streamed. */
function lineRuns({ core, store, options, sessions, budgetOf, tracing }: LineRuns): Runner["run"] {
  return (input, runOptions = {}) => {
    const sessionId = runOptions.resume ?? runOptions.sessionId ?? newSessionId();
    const events = new EventStream<RunEvent>();
    const keep = options.transcript?.enabled !== false;
    // The run starts on the next tick, so that a reader that starts at once sees all of it.
    const done = Promise.resolve()
      .then(async () => {
        checkSessionId(sessionId);
        // One run at a time writes a session (from its first event on, so that `run -c` during
        // a first run is refused too): a second is refused before it writes anything.
        const release = keep ? store.lock?.(sessionId) : undefined;
        const unrecorded = unrecordedStop(options.transcript?.required === true, runOptions.signal);
        try {
          const transcript = keep
            ? store.open(sessionId, (message) => {
                events.push({ runId: "", depth: 0, type: "warning", message });
                unrecorded.stop(message);
              })
            : undefined;
          const opened = await tracing;
          const trace = opened.tracing?.forRun(runOptions.traceparent);
          const checkpoint = turnCheckpoint(store, options, sessionId, events);
          const emit: EventSink = (given) => {
            const event = topStart(given, runOptions.promptId, checkpoint);
            trace?.observe(event);
            if (event.type !== "tool_output") transcript?.write(event); // a command's output is progress
            events.push(event);
          };
          if (opened.warning) emit({ runId: "", depth: 0, type: "warning", message: opened.warning });
          const at = {
            sessionId,
            emit,
            signal: unrecorded.signal,
            ...(transcript?.file !== undefined && { transcriptPath: transcript.file }),
            ...(transcript && store.flushed && { writeAhead: () => store.flushed?.() ?? Promise.resolve() }),
            ...(trace && { traceparent: (id: string) => trace.traceparent("", id) }),
          };
          const started = await sessions.start(at, runOptions.resume !== undefined);
          const budget = budgetOf(sessionId, runOptions.budget);
          const out = { ...at, started, budget, ...(trace && { trace }), ...(checkpoint && { checkpoint }) };
          const result = unrecorded.result(await runLine(core, store, options, input, runOptions, out));
          return transcript?.intact && transcript.file ? { ...result, transcript: transcript.file } : result;
        } finally {
          release?.();
        }
      })
      .finally(() => events.end());
    return { sessionId, result: () => done, [Symbol.asyncIterator]: () => events[Symbol.asyncIterator]() };
  };
}

/** What a line's run is given by the runner: a run's (`RunOut`), and the turn's checkpoint. */
interface LineOut extends RunOut {
  checkpoint?: TurnCheckpoint;
}

/** A typed line (or `--agent`) as a run of the main agent's project: prepared, then started. */
async function runLine(
  core: Core,
  store: TranscriptStore,
  options: RunnerOptions,
  input: Content,
  runOptions: RunOptions,
  out: LineOut,
): Promise<RunResult> {
  const recording = isModel(options.model) ? undefined : options.model?.record;
  if (recording && typeof input === "string") recordInput(recording, input);
  for (const message of [...core.notices, ...core.catalog.registry.warnings])
    out.emit({ runId: "", depth: 0, type: "warning", message });
  // .mcp.json and mcpServers problems: those servers are missing, the rest of the run is not.
  for (const d of core.external.servers.diagnostics)
    if (d.severity !== "info")
      out.emit({
        runId: "",
        depth: 0,
        type: "warning",
        message: `${d.file}:${d.line}:${d.column}: ${d.message}`,
      });
  const before = runOptions.resume
    ? await resumed(store, runOptions.resume, out.emit, core.cwd, runOptions.continue === true)
    : undefined;
  const history = before?.messages ?? [];
  const refusal = sessionRefusal(out.started);
  if (refusal)
    return endBeforeStart(
      { runId: newRunId(), depth: 0, emit: out.emit, sessionId: out.sessionId, messages: history },
      "refused",
      refusal.code,
      refusal.message,
    );
  const initial = history.length === 0 ? core.main?.initialPrompt : undefined; // a new session's
  let request: RunRequest = parseLine(input, runOptions.agent, initial);
  const io: RunIo = {
    signal: out.signal,
    sessionId: out.sessionId,
    emit: out.emit,
    budget: out.budget,
    history,
    ...(before && { reads: before.reads }),
    ...(out.transcriptPath !== undefined && { transcriptPath: out.transcriptPath }),
    ...(out.writeAhead && { writeAhead: out.writeAhead }),
    ...(out.started && out.started.context.length > 0 && { context: out.started.context }),
    ...(out.trace && { trace: out.trace }),
    ...(out.checkpoint && { checkpoint: out.checkpoint }),
    ...(runOptions.continue && history.at(-1)?.role === "user" && { continues: true }),
    ...(runOptions.continue && before?.open && { continues: true, open: before.open }),
    ...(request.kind === "invocable" && typeof input === "string" && { typed: input.trim() }),
  };
  // `/mcp__server__prompt args` is an MCP prompt, unless a command or skill has that very name.
  if (
    request.kind === "invocable" &&
    isMcpPromptName(request.name) &&
    !core.commands.has(request.name) &&
    !core.skills.has(request.name)
  ) {
    const p = await mcpPrompt(core, userCaller(core).list, request.name, request.args);
    if (!p.ok)
      return endBeforeStart(
        { runId: newRunId(), depth: 0, emit: io.emit, sessionId: io.sessionId, messages: history },
        "error",
        "invocation_failed",
        p.message,
      );
    request = { kind: "prompt", content: p.content };
  }
  const prepared = prepareRun(core, userCaller(core, runOptions.model), request);
  if (prepared.kind === "ready") return startRun(core, prepared.spec, io);
  const ended = { runId: newRunId(), depth: 0, emit: io.emit, sessionId: io.sessionId, messages: history };
  return prepared.kind === "refused"
    ? endBeforeStart(ended, "refused", "refused_by_permissions", prepared.message)
    : endBeforeStart(ended, "error", "invocation_failed", prepared.message);
}
