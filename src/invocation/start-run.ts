import { type BackgroundRuns, createBackgroundRuns } from "../loop/background-runs.js";
import { type Budget, budgetBelow, isCapped, rootBudget } from "../loop/budget.js";
import { endRun } from "../loop/end-run.js";
import type { EventSink, RunErrorCode, RunResult } from "../loop/events.js";
import type { CallContext, RunState } from "../loop/execute-call.js";
import { type LoopConfig, runLoop } from "../loop/run-loop.js";
import type { MessageParam } from "../model/messages.js";
import type { Model } from "../model/model.js";
import { priceOf, ZERO_USAGE } from "../model/models.js";
import type { PermissionMode } from "../permissions/approval.js";
import { allowsNothing, judgesCommands, loadShellParser, ruleTexts } from "../permissions/index.js";
import { narrowerMode } from "../permissions/mode-order.js";
import type { PermissionList } from "../permissions/types.js";
import { nodeCrypto } from "../shared/node-builtins.js";
import { createBackgroundShells } from "../tools/builtin/background-shells.js";
import { createReadRecord } from "../tools/read-record.js";
import {
  type OfferedTool,
  offeredUnderApproval,
  type RegisteredTool,
  unsayableServerTools,
} from "../tools/registry.js";
import type { Logger, Tool } from "../tools/types.js";
import { attachResources, serverNames } from "./attach-resources.js";
import { runStarts, skillCatalog } from "./catalog.js";
import { createSkillTool, createTaskTool } from "./child-tools.js";
import type { Core } from "./core.js";
import { expandBody } from "./expand-body.js";
import { mcpStartWatch } from "./mcp-start-trace.js";
import { promptHooks, withContext } from "./prompt-hooks.js";
import { runSandboxOf } from "./run-sandbox-of.js";
import { approvalOf, type RunTools, registryWith, runTools } from "./run-tools.js";
import type { Expanded, ParentRun, RunIo, RunSpec } from "./run-types.js";

export const newRunId = () => `run-${nodeCrypto().randomBytes(4).toString("hex")}`;

/**
 * Starts a run and resolves with its result: `run_start`, then its prompt made ready (a command's or
 * skill's `!cmd` and `@file` go through the run's own tool-call path), then the loop. It is refused,
 * before any request, when the effective list allows nothing; a list whose entries name no tool that
 * exists is refused at the top and runs with a warning below it (a model without tools answers in
 * prose and looks successful). Contract: never rejects.
 */
export async function startRun(core: Core, spec: RunSpec, io: RunIo): Promise<RunResult> {
  const runId = newRunId();
  // Loaded while the first request is on its way: the first Bash call is judged without waiting.
  if (judgesCommands(spec.list, core.catalog.specs)) void loadShellParser();
  const logger: Logger = {
    debug: () => {},
    warn: (message) => io.emit({ runId, depth: spec.depth, type: "warning", message }),
  };
  const state: RunState = {
    list: spec.list,
    hooks: spec.hooks,
    meter: { usage: ZERO_USAGE, costUsd: 0 },
    ...(spec.approved && { approved: spec.approved }),
  };
  // A budget is a ceiling like the lists: the caller's, or this run's own cap within it.
  const budget = budgetBelow(io.budget ?? rootBudget(), spec.maxBudgetUsd);
  // MCP servers the run may reach start here, before its first request (see run-tools.ts).
  const outside = await runTools(core, spec, state, io.signal, mcpStartWatch(spec, io, runId));
  const call = runCalls(
    core,
    spec,
    { ...io, budget },
    { runId, state, logger, outside, background: createBackgroundRuns(io.signal) },
  );
  // Background commands end with the run that started them, however it ends.
  try {
    return await opened(core, spec, { ...io, budget }, call, outside);
  } finally {
    call.shells?.close();
  }
}

/**
 * The run's calls: every call of the run goes through this context. Its registry is the catalog's
 * tools, those from outside, and the tools that start runs (Task, Skill) when this run may start
 * anything with them; an inline skill's body (Bash and Read calls only) goes through the same
 * context without those, which are built from it.
 */
function runCalls(
  core: Core,
  spec: RunSpec,
  io: RunIo,
  run: { runId: string; state: RunState; logger: Logger; outside: RunTools; background: BackgroundRuns },
): CallContext {
  const calls = callContext(core, spec, io, { ...run, registry: registryWith(core, run.outside.tools) });
  const parent: ParentRun = {
    spec,
    state: run.state,
    runId: run.runId,
    background: run.background,
    ...(spec.workdir && { cwd: spec.workdir.cwd }),
    startChild: (child, by) =>
      startRun(core, child, {
        signal: by.signal,
        emit: io.emit,
        sessionId: io.sessionId,
        history: [],
        ...(by.callId && { parentToolUseId: by.callId }),
        ...(io.transcriptPath !== undefined && { transcriptPath: io.transcriptPath }),
        ...(io.writeAhead && { writeAhead: io.writeAhead }),
        ...(io.budget && { budget: io.budget }),
        ...(io.trace && { trace: io.trace }),
        ...(io.checkpoint && { checkpoint: io.checkpoint }),
      }),
    expand: (prompt, state, signal) =>
      expandBody(prompt, { ...calls, state, signal }, core.fs, serverNames(core)),
  };
  const starts = runStarts(core, spec);
  const starting = [
    createTaskTool(core, parent, starts.subagents),
    createSkillTool(core, parent, starts.skills),
  ];
  const extra = starting.filter((t): t is Tool => t !== undefined);
  return {
    ...calls,
    registry: registryWith(core, [...run.outside.tools, ...extra]),
    background: run.background,
  };
}

/** The run once its tools are known: `run_start`, then refused, or its sandbox opened and on. */
async function opened(
  core: Core,
  spec: RunSpec,
  io: RunIo,
  call: CallContext,
  outside: RunTools,
): Promise<RunResult> {
  const { runId, state, registry } = call;
  const offerAll = (list: PermissionList) => offeredUnderApproval(registry.all, list, approvalOf(core, spec));
  const offer = (list: PermissionList) => offerAll(list).filter((r) => !outside.hidden.has(r.tool.name));
  const shown = offer(spec.list);
  io.emit({
    runId,
    depth: spec.depth,
    type: "run_start",
    sessionId: io.sessionId,
    agent: spec.agent,
    model: spec.model,
    tools: shown.map((r) => r.tool.name),
    ...(spec.parentRunId && { parentRunId: spec.parentRunId }),
    ...(io.parentToolUseId && { parentToolUseId: io.parentToolUseId }),
    ...(io.typed !== undefined && { input: io.typed }),
    ...(io.trace && { list: ruleTexts(spec.list) }),
    ...(outside.servers && outside.servers.length > 0 && { mcpServers: outside.servers }),
  });
  const ended = {
    runId,
    depth: spec.depth,
    emit: io.emit,
    sessionId: io.sessionId,
    messages: [...io.history],
  };
  if (outside.interrupted) return endInterrupted(ended, outside.interrupted);
  for (const message of outside.warnings) call.logger.warn(message);
  for (const name of unsayableServerTools(registry.all, spec.list))
    call.logger.warn(
      `${name} is allowed but not offered: the model API cannot be told exactly what its rules allow (a subdomains-only pattern, a deny inside an allowed site), and a list is never widened`,
    );
  const refused = refusalOf(spec, offerAll(spec.list), core.restricted);
  // A list left with nothing because a server it names could not start: that server's fault.
  if (refused && outside.failed.length > 0 && !allowsNothing(spec.list))
    return endBeforeStart(ended, "error", "mcp_server_failed", serverFault(outside.failed));
  if (refused) return endBeforeStart(ended, "refused", "refused_by_permissions", refused);
  const unpriced = unpricedUnderBudget(core, spec, io.budget);
  if (unpriced) return endBeforeStart(ended, "refused", "unpriced_under_budget", unpriced);
  // A run that asks for the sandbox and cannot have it is refused before its first request.
  if (spec.sandbox) {
    const sandbox = await runSandboxOf(core, spec.sandbox, spec.workdir);
    if (!sandbox.ok) return endBeforeStart(ended, "refused", "sandbox_unavailable", sandbox.message);
    state.sandbox = sandbox.sandbox;
  }
  if (spec.list.rules !== null && offerAll(spec.list).length === 0)
    call.logger.warn(`${spec.agent} runs with no tools: ${noToolSentence(spec.list)}`);
  return converse(core, spec, io, call, { ended, offer, shown });
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
    // The prompt's hooks (UserPromptSubmit, or SubagentStart below the top) judge it before a
    // command's `!cmd` runs, and before anything is sent.
    const hooked = await promptHooks(spec, io, call);
    if (!hooked.ok) return endBeforeStart(run.ended, "refused", hooked.code, hooked.message);
    const servers = serverNames(core);
    const content =
      spec.prompt.kind !== "content"
        ? await expandBody(spec.prompt, call, core.fs, servers)
        : typeof spec.prompt.content === "string" && spec.depth === 0
          ? await attachResources(spec.prompt.content, "the prompt", servers, call)
          : { ok: true as const, text: spec.prompt.content };
    if (!content.ok) return endBeforeStart(run.ended, "error", "invocation_failed", content.message);
    const said = withContext(content.text, hooked.context);
    io.emit({ runId: call.runId, depth: spec.depth, type: "user_message", content: said });
    messages = [...messages, { role: "user", content: said }];
  }
  const preloaded = await preloadedText(core, spec, call);
  if (!preloaded.ok) return endBeforeStart(run.ended, "error", "invocation_failed", preloaded.message);
  const system = [
    spec.system.trim(),
    run.shown.some((r) => r.tool.name === "Skill") ? skillCatalog(core, spec.list) : "",
    preloaded.text,
  ]
    .filter(Boolean)
    .join("\n\n");
  // The runner's model, telling what it notices during this run's turns as this run's warnings.
  const model: Model = {
    turn: (request, cx) =>
      core.model.turn(request, {
        signal: cx.signal,
        onText: (text) => cx.onText(text),
        onRetry: (attempt, reason, delayMs) => cx.onRetry(attempt, reason, delayMs),
        onNotice: (message) => call.logger.warn(message),
      }),
  };
  return runLoop(
    {
      model,
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
      ...(spec.outputSchema && { outputSchema: spec.outputSchema }),
      ...(io.budget && { budget: io.budget }),
      fallbackModels: spec.fallbackModels ?? core.settings.fallbackModels,
      reasoning: reasoningFor(spec, core.settings),
      ...(io.open && { open: io.open }),
    },
    messages,
  );
}

/** A run's effort and thinking: its own definition's, else the runner's (`--effort`, agent.md). */
const reasoningFor = (spec: RunSpec, settings: Core["settings"]) => ({
  ...((spec.effort ?? settings.effort) && { effort: spec.effort ?? settings.effort }),
  ...((spec.thinking ?? settings.thinking) !== undefined && { thinking: spec.thinking ?? settings.thinking }),
});

/** The skills a subagent preloads, made ready through the run's own calls, as its system prompt shows them. */
async function preloadedText(core: Core, spec: RunSpec, call: CallContext): Promise<Expanded> {
  const parts: string[] = [];
  for (const prompt of spec.preload ?? []) {
    const made = await expandBody(prompt, call, core.fs);
    if (!made.ok) return made;
    parts.push(`## ${prompt.label.replace(/^the s/, "S")} (preloaded)\n\n${made.text.trim()}`);
  }
  return { ok: true, text: parts.join("\n\n") };
}

/** A run under a budget whose model has no known price could spend without limit: it is refused. */
function unpricedUnderBudget(core: Core, spec: RunSpec, budget: Budget | undefined): string | undefined {
  if (!budget || !isCapped(budget)) return undefined;
  const models = [spec.model, ...(spec.fallbackModels ?? core.settings.fallbackModels)];
  const unpriced = models.find((m) => priceOf(m, core.prices) === undefined);
  if (unpriced === undefined) return undefined;
  return `the model ${unpriced} has no known price, so it cannot run under a budget (maxBudgetUsd, --max-budget-usd); give its price (the runner's model.prices) or run without a budget`;
}

function callContext(
  core: Core,
  spec: RunSpec,
  io: RunIo,
  run: Pick<CallContext, "registry" | "state" | "runId" | "logger">,
): CallContext {
  return {
    registry: run.registry,
    state: run.state,
    runId: run.runId,
    logger: run.logger,
    // A subagent with isolation: worktree works in its worktree.
    cwd: spec.workdir?.cwd ?? core.cwd,
    signal: io.signal,
    // Read-before-edit belongs to the session: its main run goes on from what it read before.
    readRecord: (spec.depth === 0 && io.reads) || createReadRecord(),
    gateMode: core.settings.gateMode,
    env: core.env,
    sessionId: io.sessionId,
    ...(io.transcriptPath !== undefined && { transcriptPath: io.transcriptPath }),
    permissionMode:
      narrowerMode(core.permissionMode as PermissionMode, spec.permissionMode) ?? core.permissionMode,
    depth: spec.depth,
    emit: io.emit,
    agent: spec.agent,
    // A run bounded by a narrower mode (a subagent's permissionMode) is approved in it.
    approval: approvalOf(core, spec),
    shells: createBackgroundShells(),
    // A worktree's files are its own folder's: a rewind of the project leaves them alone.
    ...(io.checkpoint && !spec.workdir && { checkpoint: io.checkpoint }),
    ...(io.trace && { traceparent: (callId: string) => io.trace?.traceparent(run.runId, callId) }),
    ...(io.writeAhead && { writeAhead: io.writeAhead }),
  };
}

/**
 * Why a run must not start: nothing is allowed, or (at the top) nothing allowed exists — in a
 * restricted folder, often because what is allowed is the project's own tools, which is said.
 */
function refusalOf(spec: RunSpec, shown: readonly RegisteredTool[], restricted: boolean): string | undefined {
  if (allowsNothing(spec.list)) return "no tool survives the allow-lists of this run, so it is refused";
  if (spec.depth === 0 && spec.list.rules !== null && shown.length === 0)
    return `${noToolSentence(spec.list)}, so it is refused${restricted ? RESTRICTED_CLAUSE : ""}`;
  return undefined;
}

const RESTRICTED_CLAUSE =
  " (the folder is not trusted, so its custom tools and MCP servers are not offered; 'agentmd trust' lets them run)";

const noToolSentence = (list: PermissionList) =>
  `no entry of the allow-list names a tool that exists in this run (${ruleTexts(list).join(", ")})`;

const serverFault = (failed: readonly string[]) =>
  `${failed.join("\n")}\nNo other tool the allow-list names exists in this run, so it did not start.`;

/** A run whose signal was aborted before its first request (while an MCP server started). */
function endInterrupted(run: Parameters<typeof endBeforeStart>[0], message: string): RunResult {
  run.emit({ runId: run.runId, depth: run.depth, type: "abort", message });
  const end = { outcome: "aborted" as const, text: "", turns: 0, usage: ZERO_USAGE, costUsd: 0, message };
  return endRun(run, end, run.messages, 0);
}

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
