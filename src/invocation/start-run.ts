import { randomBytes } from "node:crypto";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type PQueue from "p-queue";
import type {
  CommandDefinition,
  Definition,
  SkillDefinition,
  SubagentDefinition,
} from "../definitions/types.js";
import type { ConcurrencySettings } from "../loop/dispatch.js";
import type { EventSink, RunResult } from "../loop/events.js";
import type { RunState } from "../loop/execute-call.js";
import type { Hooks } from "../loop/hooks.js";
import { runLoop } from "../loop/run-loop.js";
import type { Price } from "../model/models.js";
import { allowsNothing, offered, ruleTexts } from "../permissions/index.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { createReadRecord } from "../tools/read-record.js";
import { createToolRegistry, type ToolRegistry } from "../tools/registry.js";
import type { Logger, SchemaValidationMode, Tool } from "../tools/types.js";
import { skillCatalog } from "./catalog.js";
import { createSkillTool, createTaskTool } from "./child-tools.js";

/** What every run of one runner shares: definitions, tools, the pool, the model client, defaults. */
export interface Core {
  readonly projectDir: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agents: ReadonlyMap<string, SubagentDefinition>;
  readonly skills: ReadonlyMap<string, SkillDefinition>;
  readonly commands: ReadonlyMap<string, CommandDefinition>;
  readonly baseTools: readonly Tool[];
  /** The base tools registered once: their specs judge calls; `/name` bodies run through them. */
  readonly baseRegistry: ToolRegistry;
  readonly pool: PQueue;
  readonly client: (emit: EventSink, runId: string) => Anthropic;
  /** A definition's own allow and deny lists, compiled. */
  readonly listOf: (def: Definition) => PermissionList;
  /** How calls of every tool are judged: the registered tools' specs, and Task's and Skill's. */
  readonly specs: ToolSpecs;
  readonly maxDepth: number;
  readonly maxTokens: number;
  readonly maxIterations: number;
  readonly promptCaching: boolean;
  readonly gateMode: SchemaValidationMode;
  readonly concurrency: ConcurrencySettings;
  readonly prices?: Readonly<Record<string, Price>>;
  readonly backoff?: (attempt: number) => number;
}

/** One run: the main agent's, a subagent's, a forked skill's. */
export interface RunSpec {
  readonly agent: string;
  readonly system: string;
  readonly model: string;
  /** The effective list: every hop's list intersected. */
  readonly list: PermissionList;
  readonly depth: number;
  readonly parentRunId?: string;
  readonly messages: MessageParam[];
  readonly maxIterations: number;
  readonly hooks: Hooks;
  readonly signal: AbortSignal;
  readonly emit: EventSink;
  readonly sessionId: string;
  /** What the user typed, when it differs from the first message (a `/name args` line). */
  readonly typed?: string;
}

const ZERO = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/**
 * Starts a run and resolves with its result. It is refused, before any request, when the effective
 * list allows nothing; a list whose entries name no tool that exists is refused at the top and runs
 * with a warning below it (a model without tools answers in prose and looks successful).
 */
export async function startRun(core: Core, spec: RunSpec): Promise<RunResult> {
  const runId = `run-${randomBytes(4).toString("hex")}`;
  const base = { runId, depth: spec.depth };
  const emit = spec.emit;
  const logger: Logger = { debug: () => {}, warn: (message) => emit({ ...base, type: "warning", message }) };
  const state: RunState = { list: spec.list, meter: { usage: ZERO, costUsd: 0 } };
  const parent = { core, spec, state, runId };
  const extra: Tool[] = [];
  const task = spec.depth < core.maxDepth ? createTaskTool(parent) : undefined;
  if (task) extra.push(task);
  const skill = createSkillTool(parent);
  if (skill) extra.push(skill);
  const registry = extra.length ? createToolRegistry([...core.baseTools, ...extra]) : core.baseRegistry;
  const offer = (list: PermissionList) => registry.all.filter((r) => offered(list, [r.tool.name]).length > 0);
  const shown = offer(spec.list);
  const catalog = shown.some((r) => r.tool.name === "Skill") ? skillCatalog(core, spec.list) : "";
  const system = [spec.system.trim(), catalog].filter(Boolean).join("\n\n");
  emit({
    ...base,
    type: "run_start",
    sessionId: spec.sessionId,
    agent: spec.agent,
    model: spec.model,
    tools: shown.map((r) => r.tool.name),
    ...(spec.parentRunId && { parentRunId: spec.parentRunId }),
    ...(spec.typed !== undefined && { input: spec.typed }),
  });
  const first = spec.messages[spec.messages.length - 1];
  if (first?.role === "user") emit({ ...base, type: "user_message", content: first.content });
  const refusal = allowsNothing(spec.list)
    ? "no tool survives the allow-lists of this run, so it is refused"
    : spec.list.rules !== null && shown.length === 0
      ? `no entry of the allow-list names a tool that exists in this run (${ruleTexts(spec.list).join(", ")})`
      : undefined;
  if (refusal && (spec.depth === 0 || allowsNothing(spec.list))) {
    const message = spec.depth === 0 && !allowsNothing(spec.list) ? `${refusal}, so it is refused` : refusal;
    return endBeforeStart(
      { ...base, emit, sessionId: spec.sessionId, messages: spec.messages },
      "refused",
      "refused_by_permissions",
      message,
    );
  }
  if (refusal) logger.warn(`${spec.agent} runs with no tools: ${refusal}`);
  return runLoop(
    {
      client: core.client(emit, runId),
      model: spec.model,
      system,
      maxTokens: core.maxTokens,
      maxIterations: spec.maxIterations,
      promptCaching: core.promptCaching,
      offer,
      call: {
        registry,
        state,
        cwd: core.cwd,
        signal: spec.signal,
        logger,
        readRecord: createReadRecord(),
        gateMode: core.gateMode,
        hooks: spec.hooks,
        env: core.env,
        runId,
        sessionId: spec.sessionId,
        depth: spec.depth,
        emit,
      },
      pool: core.pool,
      concurrency: core.concurrency,
      sessionId: spec.sessionId,
      ...(core.prices && { prices: core.prices }),
      ...(core.backoff && { backoff: core.backoff }),
    },
    spec.messages,
  );
}

/**
 * A run that ends before its first request (refused by the allow-lists, an unknown `/name`, a
 * command whose `!` block was denied): an error event, the run's end, and its result.
 */
export function endBeforeStart(
  run: { runId: string; depth: number; emit: EventSink; sessionId: string; messages: MessageParam[] },
  outcome: "refused" | "error",
  code: string,
  message: string,
): RunResult {
  const base = { runId: run.runId, depth: run.depth };
  const ended = { text: "", turns: 0, usage: ZERO, costUsd: 0 };
  run.emit({ ...base, type: "error", code, message });
  run.emit({ ...base, type: "run_end", outcome, ...ended, ms: 0 });
  return { sessionId: run.sessionId, runId: run.runId, outcome, ...ended, messages: run.messages, message };
}

export interface ParentRun {
  readonly core: Core;
  readonly spec: RunSpec;
  readonly state: RunState;
  readonly runId: string;
}

export function mergeHooks(...sets: (Hooks | undefined)[]): Hooks {
  return {
    PreToolUse: sets.flatMap((h) => h?.PreToolUse ?? []),
    PostToolUse: sets.flatMap((h) => h?.PostToolUse ?? []),
  };
}
