import path from "node:path";
import type { MainAgentDefinition } from "../../definitions/types.js";
import type { Content } from "../../invocation/run-types.js";
import type { Runner } from "../../invocation/runner.js";
import type { RunEvent, RunResult } from "../../loop/events.js";
import { SessionError, type TranscriptStore } from "../../loop/transcript.js";
import { restrictedWithNotice } from "../commands/project-trust.js";
import { exitCode, latestSession, type RunIo } from "../commands/run-outcome.js";
import type { SessionOptions } from "../flags/session-flags.js";
import { type WrapperOptions, withWrapper } from "../flags/wrapper-flags.js";
import { openRunner } from "../open-runner.js";
import { printable } from "../terminal/printable.js";
import {
  answer,
  openChannel,
  type SdkChannel,
  type SdkRequest,
  type SdkUserMessage,
  userContent,
} from "./sdk-channel.js";
import { control, type Live, sessionStates } from "./sdk-control.js";
import { sdkElicit } from "./sdk-elicit.js";
import { type ClaudeHistory, claudeHistory } from "./sdk-history.js";
import { sdkHooks } from "./sdk-hooks.js";
import { agentsOf, type SdkInitialize, sdkApprover, systemPromptOf } from "./sdk-initialize.js";
import { replayOf, turnInput } from "./sdk-input.js";
import { type SdkMcpServer, sdkMcpTools } from "./sdk-mcp.js";
import { turnOutput } from "./sdk-output.js";
import { checkpointingOn, promptIdOf } from "./sdk-rewind.js";
import { forkSession, memoryTranscripts, projectTranscripts } from "./sdk-sessions.js";

export interface SdkSessionOptions extends SessionOptions {
  readonly wrapper: WrapperOptions;
  readonly agent?: string;
  /** `--permission-mode auto` was given, and said on stderr to be `default`. */
  readonly autoSaid?: boolean;
}

/**
 * `--input-format stream-json`: the Agent SDK's side of the pipe. The SDK's `initialize` brings
 * what is not on the command line (system prompt, agents, hook callbacks, in-process MCP servers);
 * each user message is then one turn of one conversation, answered by its messages and one
 * `result`; stdin's end ends the session (exit 0, or 1 when the last turn failed, as Claude Code).
 */
export async function runSdkSession(options: SdkSessionOptions, io: RunIo): Promise<number> {
  if (!io.stdin) {
    io.stderr.write("agentmd: --input-format stream-json needs its messages on standard input\n");
    return 2;
  }
  const live: Live = {
    mode: options.wrapper.bypass ? "bypassPermissions" : (options.permissions?.mode ?? "default"),
    state: () => {},
    ...(options.autoSaid && { autoSaid: true }),
    checkpoints: checkpointingOn(io.env),
  };
  if (options.wrapper.dontAsk) live.mode = "dontAsk";
  let onInit: (r: SdkRequest) => void = () => {};
  const initialized = new Promise<SdkRequest>((resolve) => (onInit = resolve));
  let begun = false;
  const channel = openChannel({ stdin: io.stdin, stdout: io.stdout, stderr: io.stderr }, (r) => {
    if (r.request.subtype !== "initialize") control(r, channel, live, io.stderr);
    else if (begun)
      answer(channel, r.request_id, new Error("initialize must come before the first user message"));
    else onInit(r);
  });
  live.state = sessionStates(io.env, channel);
  try {
    // The SDK writes initialize first. A program that writes user messages alone (Claude Code's
    // streaming input) gets the session as the flags make it; stdin ending first leaves nothing to do.
    const first = channel.nextUser();
    const start = await Promise.race([
      initialized.then((init) => ({ init })),
      first.then((message) => ({ init: undefined, message })),
    ]);
    begun = true;
    if (!start.init && !start.message) return 0;
    const store = options.wrapper.persist ? undefined : memoryTranscripts();
    const opened = await openSession(options, io, start.init, channel, live, store);
    if (!opened) return 1;
    try {
      return await turns(options, io, opened, first, channel, live, store);
    } finally {
      await opened.runner.close();
    }
  } finally {
    channel.close();
  }
}

interface Opened {
  readonly runner: Runner;
  readonly mcpServers: readonly SdkMcpServer[];
}

/** The runner the session's turns share: the flags, then what `initialize` brought. */
async function openSession(
  options: SdkSessionOptions,
  io: RunIo,
  request: SdkRequest | undefined,
  channel: SdkChannel,
  live: Live,
  store: TranscriptStore | undefined,
): Promise<Opened | undefined> {
  const init = (request?.request ?? {}) as SdkInitialize;
  const warn = (m: string) => io.stderr.write(`agentmd: ${printable(m)}\n`);
  let agentMs: number | undefined;
  const mcp = await sdkMcpTools(init.sdkMcpServers ?? [], init.sdkMcpServerManifests, channel, {
    ...(init.sdkMcpServerConfigs && { configs: init.sdkMcpServerConfigs }),
    env: io.env,
    agentMs: () => agentMs,
  });
  const prompt = systemPromptOf(init);
  const permissions = withWrapper(options.permissions, options.wrapper) ?? {};
  const approve = options.wrapper.promptOverStdio
    ? sdkApprover(channel, {
        signal: () => live.turn?.signal,
        interrupt: () => live.turn?.abort(),
        mode: () => live.mode,
        asking: (waiting) => live.state(waiting ? "requires_action" : "running"),
      })
    : undefined;
  const runner = await openRunner(
    {
      ...options,
      ...(prompt.replace !== undefined && { systemPrompt: prompt.replace }),
      ...(prompt.append !== undefined && { appendSystemPrompt: prompt.append }),
      permissions: { ...permissions, ...(approve && { approve }) },
      extra: {
        ...options.wrapper.runner,
        // A server's question goes to the program's onElicitation (the SDK declines without one).
        mcp: { ...options.wrapper.runner.mcp, elicit: sdkElicit(channel) },
        ...(store && { transcript: { store } }),
        agents: agentsOf(init),
        hooks: sdkHooks(init.hooks, channel, { permissionMode: () => live.mode, warn }),
        tools: { extra: mcp.tools },
        checkpoints: live.checkpoints,
      },
    },
    io,
    restrictedWithNotice(io),
  );
  if (!runner) {
    if (request)
      answer(channel, request.request_id, new Error("agentmd could not open the project (see stderr)"));
    return undefined;
  }
  live.runner = runner;
  const main = runner.definitions.find((d): d is MainAgentDefinition => d.surface === "main");
  if (main?.mcpTimeout !== undefined) agentMs = main.mcpTimeout * 1000;
  if (request)
    answer(channel, request.request_id, {
      commands: await runner.slashCommands(),
      agents: runner.definitions
        .filter((d) => d.surface === "agent")
        .map((d) => ({ name: d.name, description: d.description ?? "" })),
      output_style: "default",
      available_output_styles: ["default"],
      models: [],
      account: {},
      pid: process.pid,
      current_permission_mode: live.mode,
      hook_on_failure_supported: true,
      ...(init.hooks && { hooks_applied: true }),
    });
  return { runner, mcpServers: mcp.servers };
}

/** Each user message a turn of the session, one after another, until stdin ends. */
async function turns(
  options: SdkSessionOptions,
  io: RunIo,
  opened: Opened,
  first: Promise<SdkUserMessage | undefined>,
  channel: SdkChannel,
  live: Live,
  store: TranscriptStore | undefined,
): Promise<number> {
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const warn = (m: string) => io.stderr.write(`agentmd: warning: ${printable(m)}\n`);
  const turn: TurnContext = {
    options,
    io,
    opened,
    channel,
    live,
    fresh: options.wrapper.sessionId,
    ...(options.wrapper.persist && { history: claudeHistory(io.env, cwd, warn) }),
  };
  let code = 0;
  try {
    turn.session = await firstSession(options, io, opened.runner, store);
    live.session = turn.session;
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr.write(`agentmd: ${printable(e.message)}\n`);
    return 1;
  }
  for (let message = await first; message; message = await channel.nextUser()) {
    const promptId = promptIdOf(message);
    if (options.wrapper.replayUserMessages)
      channel.send(replayOf(message, promptId, turn.session ?? turn.fresh ?? ""));
    live.state("running");
    code = await oneTurn(turn, message, promptId);
    live.state("idle");
  }
  return code;
}

interface TurnContext {
  readonly options: SdkSessionOptions;
  readonly io: RunIo;
  readonly opened: Opened;
  readonly channel: SdkChannel;
  readonly live: Live;
  /** The session the turns go on (once the first has run, or resumed). */
  session?: string;
  /** `--session-id`: the first turn's new session. */
  fresh?: string | undefined;
  /** The conversation as Claude Code keeps it (what `session/load` replays), unless not persisted. */
  readonly history?: ClaudeHistory | undefined;
}

/** One user message: its run (a prompt, or `/name args`), its messages and its result; the exit code so far. */
async function oneTurn(t: TurnContext, message: SdkUserMessage, promptId: string): Promise<0 | 1> {
  const { options, io, opened, channel, live } = t;
  const { runner } = opened;
  const content = userContent(message);
  const taken = isError(content) ? content : turnInput(content, runner);
  if ("error" in taken) {
    // Not a message the SDK's types allow, or a /name the project lacks: said as this message's
    // result; the session goes on.
    channel.send(failedTurn(taken.error, t.session ?? ""));
    return 1;
  }
  const controller = new AbortController();
  live.turn = controller;
  // A signal stops the running turn; between turns it ends the process at once.
  const unhook = io.onInterrupt?.(() => controller.abort());
  const out = turnOutput({
    cwd: path.resolve(io.cwd, options.cwd ?? "."),
    permissionMode: live.mode,
    apiKeySource: io.env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "none",
    slashCommands: runner.slashNames(),
    agents: runner.definitions.filter((d) => d.surface === "agent").map((d) => d.name),
    mcpServers: opened.mcpServers,
    partialMessages: options.wrapper.partialMessages,
    signInNeeded: (m) => io.stderr.write(`agentmd: ${printable(m)}\n`),
  });
  const started = performance.now();
  let result: RunResult;
  try {
    const handle = runner.run(taken.input, {
      signal: controller.signal,
      ...(t.session ? { resume: t.session } : t.fresh ? { sessionId: t.fresh } : {}),
      ...(options.agent && { agent: options.agent }),
      promptId,
    });
    live.session = handle.sessionId;
    let said = false;
    for await (const event of handle) {
      noteUsage(live, event);
      if (event.type === "run_start" && event.depth === 0 && !said) {
        said = true;
        t.history?.add(event.sessionId, { type: "user", message: message.message, uuid: message.uuid });
      }
      for (const m of out.messages(event) as Record<string, unknown>[]) {
        channel.send(m);
        t.history?.add(String(m.session_id ?? ""), m);
      }
    }
    result = await handle.result();
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    channel.send(failedTurn(e.message, t.session ?? ""));
    return 1;
  } finally {
    unhook?.();
    live.turn = undefined;
  }
  t.session = result.sessionId;
  t.fresh = undefined;
  channel.send(out.result(result, performance.now() - started));
  return exitCode(result) === 0 ? 0 : 1;
}

const isError = (c: Content | { error: string }): c is { error: string } =>
  typeof c === "object" && !Array.isArray(c) && "error" in c;

/** The main agent's model and last usage, for `get_context_usage`. */
function noteUsage(live: Live, e: RunEvent): void {
  if (e.depth !== 0) return;
  if (e.type === "run_start") live.model = e.model;
  if (e.type === "usage" && live.model !== undefined) live.last = { model: live.model, usage: e.usage };
}

/** The session the first turn continues: `--resume`/`--continue` (forked with `--fork-session`), or none. */
async function firstSession(
  options: SdkSessionOptions,
  io: RunIo,
  runner: Runner,
  store: TranscriptStore | undefined,
): Promise<string | undefined> {
  const resume = options.continueLast
    ? (latestSession(io, path.resolve(io.cwd, options.cwd ?? ".")) ?? undefined)
    : options.resume;
  if (!resume || !options.wrapper.fork) return resume;
  return forkSession(store ?? projectTranscripts(runner), resume, options.wrapper.sessionId);
}

function failedTurn(message: string, sessionId: string): object {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    errors: [message],
    session_id: sessionId,
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    total_cost_usd: 0,
    usage: {},
    permission_denials: [],
    terminal_reason: "error",
  };
}
