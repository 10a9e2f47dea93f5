import path from "node:path";
import { PERMISSION_MODES, type PermissionMode } from "../../definitions/settings.js";
import type { MainAgentDefinition } from "../../definitions/types.js";
import type { Runner } from "../../invocation/runner.js";
import type { RunResult } from "../../loop/events.js";
import { SessionError, type TranscriptStore } from "../../loop/transcript.js";
import { ConfigError } from "../../shared/errors.js";
import { restrictedWithNotice } from "../commands/project-trust.js";
import { exitCode, latestSession, type RunIo } from "../commands/run-command.js";
import type { SessionOptions } from "../flags/session-flags.js";
import { type WrapperOptions, withWrapper } from "../flags/wrapper-flags.js";
import { openRunner } from "../open-runner.js";
import { printable } from "../terminal/render.js";
import {
  answer,
  openChannel,
  type SdkChannel,
  type SdkRequest,
  type SdkUserMessage,
  userContent,
} from "./sdk-channel.js";
import { sdkHooks } from "./sdk-hooks.js";
import { agentsOf, type SdkInitialize, sdkApprover, systemPromptOf } from "./sdk-initialize.js";
import { type SdkMcpServer, sdkMcpTools } from "./sdk-mcp.js";
import { turnOutput } from "./sdk-output.js";
import { checkpointingOn, promptIdOf, replayedUser, rewindFilesRequest } from "./sdk-rewind.js";
import { forkSession, memoryTranscripts, projectTranscripts } from "./sdk-sessions.js";

export interface SdkSessionOptions extends SessionOptions {
  readonly wrapper: WrapperOptions;
  readonly agent?: string;
}

/** What the control requests change while the session runs. */
interface Live {
  mode: string;
  turn?: AbortController;
  runner?: Runner;
  /** The session the turns go on (for `rewind_files`), once known. */
  session?: string;
  /** The SDK's `enableFileCheckpointing`. */
  checkpoints: boolean;
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
    checkpoints: checkpointingOn(io.env),
  };
  if (options.wrapper.dontAsk) live.mode = "dontAsk";
  let onInit: (r: SdkRequest) => void = () => {};
  const initialized = new Promise<SdkRequest>((resolve) => (onInit = resolve));
  let begun = false;
  const channel = openChannel({ stdin: io.stdin, stdout: io.stdout, stderr: io.stderr }, (r) => {
    if (r.request.subtype !== "initialize") control(r, channel, live);
    else if (begun)
      answer(channel, r.request_id, new Error("initialize must come before the first user message"));
    else onInit(r);
  });
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
      commands: runner.slashNames().map((name) => ({ name, description: "", argumentHint: "" })),
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

/** The SDK's requests besides initialize: `interrupt`, `set_permission_mode`; others are refused. */
function control(r: SdkRequest, channel: SdkChannel, live: Live): void {
  const { subtype } = r.request;
  if (subtype === "rewind_files") {
    rewindFilesRequest(r, channel, live).catch((e: Error) => answer(channel, r.request_id, e));
    return;
  }
  if (subtype === "interrupt") {
    live.turn?.abort();
    answer(channel, r.request_id, { still_queued: [] });
    return;
  }
  if (subtype === "set_permission_mode") {
    const mode = String(r.request.mode);
    if (mode !== "dontAsk" && !(PERMISSION_MODES as readonly string[]).includes(mode)) {
      answer(channel, r.request_id, new Error(`'${mode}' is not a permission mode agentmd has`));
      return;
    }
    try {
      live.runner?.setPermissionMode(mode === "dontAsk" ? "default" : (mode as PermissionMode));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      answer(channel, r.request_id, e);
      return;
    }
    live.mode = mode;
    channel.send({ type: "system", subtype: "status", status: null, permissionMode: mode });
    answer(channel, r.request_id, { mode });
    return;
  }
  answer(channel, r.request_id, new Error(`agentmd does not support the '${subtype}' request`));
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
  const { runner } = opened;
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  let session: string | undefined;
  let fresh = options.wrapper.sessionId;
  let code = 0;
  try {
    session = await firstSession(options, io, runner, store);
    live.session = session;
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr.write(`agentmd: ${printable(e.message)}\n`);
    return 1;
  }
  for (let message = await first; message; message = await channel.nextUser()) {
    const content = userContent(message);
    if (typeof content === "object" && "error" in content) {
      // Not a message the SDK's types allow: said as this message's result; the session goes on.
      channel.send(failedTurn(content.error, session ?? ""));
      code = 1;
      continue;
    }
    const controller = new AbortController();
    live.turn = controller;
    // A signal stops the running turn; between turns it ends the process at once.
    const unhook = io.onInterrupt?.(() => controller.abort());
    const out = turnOutput({
      cwd,
      permissionMode: live.mode,
      apiKeySource: io.env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "none",
      slashCommands: runner.slashNames(),
      agents: runner.definitions.filter((d) => d.surface === "agent").map((d) => d.name),
      mcpServers: opened.mcpServers,
      partialMessages: options.wrapper.partialMessages,
    });
    const started = performance.now();
    let result: RunResult;
    try {
      const promptId = promptIdOf(message);
      const handle = runner.run(content, {
        signal: controller.signal,
        ...(session ? { resume: session } : fresh ? { sessionId: fresh } : {}),
        ...(options.agent && { agent: options.agent }),
        promptId,
      });
      live.session = handle.sessionId;
      if (options.wrapper.replayUserMessages) channel.send(replayedUser(message, promptId, handle.sessionId));
      for await (const event of handle) for (const m of out.messages(event)) channel.send(m);
      result = await handle.result();
    } catch (e) {
      if (!(e instanceof SessionError)) throw e;
      channel.send(failedTurn(e.message, session ?? ""));
      code = 1;
      continue;
    } finally {
      unhook?.();
      live.turn = undefined;
    }
    session = result.sessionId;
    fresh = undefined;
    channel.send(out.result(result, performance.now() - started));
    code = exitCode(result) === 0 ? 0 : 1;
  }
  return code;
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
