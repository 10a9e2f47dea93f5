import { type Effort, isEffort, type Thinking, thinkingProblem } from "../definitions/effort-thinking.js";
import {
  describeSchemaProblems,
  type OutputSchema,
  outputSchemaProblems,
} from "../definitions/output-schema.js";
import type { MainAgentDefinition } from "../definitions/types.js";
import { resolveModel } from "../model/models.js";
import { resolveSandbox, type SandboxInput, type SandboxSetting } from "../sandbox/sandbox-setting.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TOKENS,
} from "../shared/defaults.js";
import { ConfigError } from "../shared/errors.js";
import type { SchemaValidationMode } from "../tools/types.js";

/** What every run of a runner is configured with, once resolved. */
export interface Settings {
  /** The main agent's model id (aliases resolved). */
  readonly model: string;
  readonly maxIterations: number;
  readonly maxTokens: number;
  readonly maxDepth: number;
  /** Tokens the model takes in one request: near it, a conversation is compacted and goes on. */
  readonly contextWindow: number;
  readonly promptCaching: boolean;
  /** How long a model response may stay silent; undefined: the model's default (120 s). */
  readonly idleTimeoutMs?: number;
  readonly gateMode: SchemaValidationMode;
  readonly concurrency: {
    readonly enabled: boolean;
    readonly maxConcurrency: number;
    readonly perBatchMax: number;
  };
  /** Commands run inside the OS sandbox, for every run of the runner; absent: off. */
  readonly sandbox?: SandboxSetting;
  /** The main agent's answer must match this schema (`--json-schema`, else agent.md's `outputSchema`). */
  readonly outputSchema?: OutputSchema;
  /** US dollars the runner's runs may spend together (`--max-budget-usd`, else agent.md's). */
  readonly maxBudgetUsd?: number;
  /** Models for an overloaded request, in order (`--fallback-model`, else agent.md's); ids resolved. */
  readonly fallbackModels: readonly string[];
  /** `--effort`, else agent.md's `effort`: the main agent's, and any run's without its own. */
  readonly effort?: Effort;
  /** `--thinking` / `--max-thinking-tokens`, else agent.md's `thinking`: likewise. */
  readonly thinking?: Thinking;
}

/** The runner options that settings come from (a part of `RunnerOptions`). */
export interface SettingOptions {
  readonly model?: {
    readonly id?: string;
    readonly idleTimeoutMs?: number;
    readonly fallback?: readonly string[];
    readonly effort?: Effort;
    readonly thinking?: Thinking;
  };
  readonly limits?: {
    readonly maxIterations?: number;
    readonly maxTokens?: number;
    readonly maxDepth?: number;
    readonly contextWindow?: number;
    readonly maxBudgetUsd?: number;
  };
  readonly outputSchema?: OutputSchema;
  readonly tools?: { readonly schemaValidation?: SchemaValidationMode };
  readonly concurrency?: {
    readonly enabled?: boolean;
    readonly maxConcurrency?: number;
    readonly perBatchMax?: number;
  };
  readonly promptCaching?: boolean;
  readonly sandbox?: SandboxInput;
}

/**
 * Each setting: the option given in code (or on the command line), else the environment's where one
 * applies (ANTHROPIC_MODEL, ANTHROPIC_TIMEOUT_MS), else agent.md's, else the default. Pure.
 */
export function resolveSettings(
  options: SettingOptions,
  main: MainAgentDefinition | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
  /** The settings files' `model`: below agent.md's. */
  settingsModel?: string,
): Settings {
  const envTimeout = Number(env.ANTHROPIC_TIMEOUT_MS);
  const idleTimeoutMs =
    options.model?.idleTimeoutMs ??
    (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : undefined) ??
    main?.idleTimeoutMs;
  const c = options.concurrency ?? {};
  const m = main?.toolConcurrency ?? {};
  const maxConcurrency = Math.max(1, c.maxConcurrency ?? m.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const perBatch = Math.max(1, c.perBatchMax ?? m.perBatchMax ?? maxConcurrency);
  const sandbox = resolveSandbox(options.sandbox, main?.sandbox);
  const outputSchema = checkedSchema(options.outputSchema) ?? main?.outputSchema;
  const maxBudgetUsd = checkedBudget(options.limits?.maxBudgetUsd) ?? main?.maxBudgetUsd;
  const effort = checkedEffort(options.model?.effort) ?? main?.effort;
  const thinking = checkedThinking(options.model?.thinking) ?? main?.thinking;
  return {
    model: resolveModel(
      options.model?.id ?? (env.ANTHROPIC_MODEL || undefined) ?? main?.model ?? settingsModel,
    ),
    maxIterations: options.limits?.maxIterations ?? main?.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxTokens: options.limits?.maxTokens ?? main?.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxDepth: options.limits?.maxDepth ?? main?.maxDepth ?? DEFAULT_MAX_DEPTH,
    contextWindow: options.limits?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    promptCaching: options.promptCaching ?? main?.promptCaching ?? true,
    ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
    gateMode: options.tools?.schemaValidation ?? main?.schemaValidation ?? "enforce",
    concurrency: {
      enabled: c.enabled ?? m.enabled ?? true,
      maxConcurrency,
      perBatchMax: Math.min(maxConcurrency, perBatch),
    },
    ...(sandbox && { sandbox }),
    ...(outputSchema && { outputSchema }),
    ...(maxBudgetUsd !== undefined && { maxBudgetUsd }),
    fallbackModels: (options.model?.fallback ?? main?.fallbackModel ?? []).map(resolveModel),
    ...(effort && { effort }),
    ...(thinking !== undefined && { thinking }),
  };
}

/** `effort` and `thinking` given in code, checked as agent.md's are. */
function checkedEffort(effort: Effort | undefined): Effort | undefined {
  if (effort !== undefined && !isEffort(effort))
    throw new ConfigError(
      `the effort must be low, medium, high, xhigh or max, not ${JSON.stringify(effort)}`,
    );
  return effort;
}

function checkedThinking(thinking: Thinking | undefined): Thinking | undefined {
  const problem = thinking === undefined ? undefined : thinkingProblem(thinking);
  if (problem) throw new ConfigError(`thinking ${problem}`);
  return thinking;
}

/** An output schema given in code, checked as agent.md's is. */
function checkedSchema(schema: OutputSchema | undefined): OutputSchema | undefined {
  if (schema === undefined) return undefined;
  const problems = outputSchemaProblems(schema);
  if (problems.length > 0)
    throw new ConfigError(`the output schema cannot be used: ${describeSchemaProblems(problems)}`);
  return schema;
}

function checkedBudget(usd: number | undefined): number | undefined {
  if (usd !== undefined && !(Number.isFinite(usd) && usd > 0))
    throw new ConfigError(`the budget must be a number of US dollars above 0, not ${String(usd)}`);
  return usd;
}
