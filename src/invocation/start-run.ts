import { randomBytes } from "node:crypto";
import { endRun } from "../loop/end-run.js";
import type { EventSink, RunErrorCode, RunResult } from "../loop/events.js";
import type { CallContext, RunState } from "../loop/execute-call.js";
import { type LoopConfig, runLoop } from "../loop/run-loop.js";
import type { MessageParam } from "../model/messages.js";
import { ZERO_USAGE } from "../model/models.js";
import { allowsNothing, judgesCommands, loadShellParser, ruleTexts } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { createBackgroundShells } from "../tools/builtin/background-shells.js";
import { createReadRecord } from "../tools/read-record.js";
import {
  createToolRegistry,
  type OfferedTool,
  type RegisteredTool,
  unsayableServerTools,
} from "../tools/registry.js";
import type { Logger, Tool } from "../tools/types.js";
import { runStarts, skillCatalog } from "./catalog.js";
import { createSkillTool, createTaskTool } from "./child-tools.js";
import type { Core } from "./core.js";
import { expandBody } from "./expand-body.js";
import type { RunSpec } from "./prepare-run.js";
import { runSandboxOf } from "./run-sandbox-of.js";
import { runTools } from "./run-tools.js";

/** Where a run's events go and what it continues: given by whoever starts it. */
export interface RunIo {
  readonly signal: AbortSignal;
  readonly emit: EventSink;
  readonly sessionId: string;
  /** The conversation so far (a resumed session's); the run's prompt is added to it. */
  readonly history: readonly MessageParam[];
  /** The parent's Task (or Skill) call that starts this run. */
  readonly parentToolUseId?: string;
  /** What the user typed, when it differs from the prompt (a `/name args` line). */
  readonly typed?: string;
  /** The history ends with a user turn of an interrupted run: go on from it, sending no prompt. */
  readonly continues?: boolean;
}

/** A run in progress, as the tools it offers (Task, Skill) see it. */
export interface ParentRun {
  readonly core: Core;
  readonly spec: RunSpec;
  readonly state: RunState;
  readonly runId: string;
  readonly io: RunIo;
  /** Every call of the run goes through this context; an inline skill's body is made ready in it. */
  readonly call: () => CallContext;
}

export const newRunId = () => `run-${randomBytes(4).toString("hex")}`;

/**
 * Starts a run and resolves with its result: `run_start`, then its prompt made ready (a command's or
 * skill's `!cmd` and `@file` go through the run's own tool-call path), then the loop. It is refused,
 * before any request, when the effective list allows nothing; a list whose entries name no tool that
 * exists is refused at the top and runs with a warning below it (a model without tools answers in
 * prose and looks successful). Contract: never rejects.
 */
export async function startRun(core: Core, spec: RunSpec, io: RunIo): Promise<RunResult> {
  const runId = newRunId();
  const base = { runId, depth: spec.depth };
  // Loaded while the first request is on its way: the first Bash call is judged without waiting.
  if (judgesCommands(spec.list, core.catalog.specs)) void loadShellParser();
  const logger: Logger = {
    debug: () => {},
    warn: (message) => io.emit({ ...base, type: "warning", message }),
  };
  const state: RunState = {
    list: spec.list,
    hooks: spec.hooks,
    meter: { usage: ZERO_USAGE, costUsd: 0 },
    ...(spec.approved && { approved: spec.approved }),
  };
  let call: CallContext | undefined;
  const parentRun: ParentRun = { core, spec, state, runId, io, call: () => call as CallContext };
  // MCP servers the run may reach start here, before its first request (see run-tools.ts).
  const tools = await runTools(parentRun, (outside) => runRegistry(core, parentRun, outside));
  const { registry, offer } = tools;
  const shown = offer(spec.list);
  io.emit({
    ...base,
    type: "run_start",
    sessionId: io.sessionId,
    agent: spec.agent,
    model: spec.model,
    tools: shown.map((r) => r.tool.name),
    ...(spec.parentRunId && { parentRunId: spec.parentRunId }),
    ...(io.parentToolUseId && { parentToolUseId: io.parentToolUseId }),
    ...(io.typed !== undefined && { input: io.typed }),
  });
  const ended = {
    runId,
    depth: spec.depth,
    emit: io.emit,
    sessionId: io.sessionId,
    messages: [...io.history],
  };
  for (const message of tools.warnings) logger.warn(message);
  for (const name of unsayableServerTools(registry.all, spec.list))
    logger.warn(
      `${name} is allowed but not offered: the model API cannot be told exactly what its rules allow (a subdomains-only pattern, a deny inside an allowed site), and a list is never widened`,
    );
  const refused = refusalOf(spec, tools.offerAll(spec.list));
  if (refused) return endBeforeStart(ended, "refused", "refused_by_permissions", refused);
  // A run that asks for the sandbox and cannot have it is refused before its first request.
  if (spec.sandbox) {
    const opened = await runSandboxOf(core, spec.sandbox);
    if (!opened.ok) return endBeforeStart(ended, "refused", "sandbox_unavailable", opened.message);
    state.sandbox = opened.sandbox;
  }
  if (spec.list.rules !== null && tools.offerAll(spec.list).length === 0)
    logger.warn(`${spec.agent} runs with no tools: ${noToolSentence(spec.list)}`);
  call = callContext(core, spec, io, { registry, state, runId, logger });
  // Background commands end with the run that started them, however it ends.
  try {
    return await converse(core, spec, io, call, { ended, offer, shown });
  } finally {
    call.shells?.close();
  }
}

/** The run from its prompt on: the prompt made ready (`!cmd`, `@file`), then the loop. */
async function converse(
  core: Core,
  spec: RunSpec,
  io: RunIo,
  call: CallContext,
  run: {
    ended: Parameters<typeof endBeforeStart>[0];
    offer: LoopConfig["offer"];
    shown: readonly OfferedTool[];
  },
): Promise<RunResult> {
  let messages: MessageParam[] = [...io.history];
  if (!io.continues) {
    const content =
      spec.prompt.kind === "content"
        ? { ok: true as const, text: spec.prompt.content }
        : await expandBody(spec.prompt, call, core.fs);
    if (!content.ok) return endBeforeStart(run.ended, "error", "invocation_failed", content.message);
    io.emit({ runId: call.runId, depth: spec.depth, type: "user_message", content: content.text });
    messages = [...messages, { role: "user", content: content.text }];
  }
  const system = [
    spec.system.trim(),
    run.shown.some((r) => r.tool.name === "Skill") ? skillCatalog(core, spec.list) : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  return runLoop(
    {
      model: core.model,
      modelId: spec.model,
      system,
      maxTokens: core.settings.maxTokens,
      maxIterations: spec.maxIterations,
      contextWindow: core.settings.contextWindow,
      promptCaching: core.settings.promptCaching,
      offer: run.offer,
      call,
      pool: core.pool,
      concurrency: core.settings.concurrency,
      sessionId: io.sessionId,
      ...(core.prices && { prices: core.prices }),
    },
    messages,
  );
}

function callContext(
  core: Core,
  spec: RunSpec,
  io: RunIo,
  run: Pick<CallContext, "registry" | "state" | "runId" | "logger">,
): CallContext {
  return {
    ...run,
    cwd: core.cwd,
    signal: io.signal,
    readRecord: createReadRecord(),
    gateMode: core.settings.gateMode,
    env: core.env,
    sessionId: io.sessionId,
    depth: spec.depth,
    emit: io.emit,
    agent: spec.agent,
    approval: core.approval,
    shells: createBackgroundShells(),
  };
}

/**
 * The run's tools: the catalog's, those from outside (MCP, ToolSearch), and Task and Skill when this
 * run may start anything with them.
 */
function runRegistry(core: Core, parentRun: ParentRun, outside: readonly Tool[] = []) {
  const extra: Tool[] = [...outside];
  const starts = runStarts(core, parentRun.spec);
  const task = createTaskTool(parentRun, starts.subagents);
  if (task) extra.push(task);
  const skill = createSkillTool(parentRun, starts.skills);
  if (skill) extra.push(skill);
  const base = core.catalog.registry;
  return extra.length ? createToolRegistry([...base.all.map((r) => r.tool), ...extra]) : base;
}

/** Why a run must not start: nothing is allowed, or (at the top) nothing allowed exists. */
function refusalOf(spec: RunSpec, shown: readonly RegisteredTool[]): string | undefined {
  if (allowsNothing(spec.list)) return "no tool survives the allow-lists of this run, so it is refused";
  if (spec.depth === 0 && spec.list.rules !== null && shown.length === 0)
    return `${noToolSentence(spec.list)}, so it is refused`;
  return undefined;
}

const noToolSentence = (list: PermissionList) =>
  `no entry of the allow-list names a tool that exists in this run (${ruleTexts(list).join(", ")})`;

/**
 * A run that ends before its first request (refused by the allow-lists, an unknown `/name`, a
 * command whose `!` block was denied): an error event, the run's end, and its result.
 */
export function endBeforeStart(
  run: { runId: string; depth: number; emit: EventSink; sessionId: string; messages: MessageParam[] },
  outcome: "refused" | "error",
  code: RunErrorCode,
  message: string,
): RunResult {
  run.emit({ runId: run.runId, depth: run.depth, type: "error", code, message });
  const end = { outcome, text: "", turns: 0, usage: ZERO_USAGE, costUsd: 0, message };
  return endRun(run, end, run.messages, 0);
}
