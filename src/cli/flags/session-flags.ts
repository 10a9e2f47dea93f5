import { statSync } from "node:fs";
import path from "node:path";
import {
  describeSchemaProblems,
  type OutputSchema,
  outputSchemaProblems,
} from "../../definitions/output-schema.js";
import type { PermissionOptions } from "../../invocation/approvals.js";
import { modelNameProblem } from "../../model/models.js";
import { HELP_OPTION, type OptionTable } from "./option-table.js";
import { PERMISSION_FLAGS, permissionFlags } from "./permission-flags.js";
import {
  REASONING_FLAGS,
  type ReasoningOptions,
  type ReasoningValues,
  reasoningOptions,
} from "./reasoning-flags.js";
import { UsageError } from "./usage-error.js";
import { WRAPPER_FLAGS } from "./wrapper-flags.js";

/** What `run` and `chat` take, spelled as Claude Code spells them (agentmd's own names too). */
const SESSION_OWN_FLAGS = {
  model: {
    type: "string",
    value: "M",
    help: [
      "a model id or alias (sonnet, opus, haiku); overrides agent.md",
      "and ANTHROPIC_MODEL. A bare word that is neither (sonet) is",
      "refused as a typo; ids are claude-… or a provider's (with . / : @)",
    ],
  },
  "max-turns": {
    type: "string",
    value: "N",
    help: ["stop after N model turns (also --max-iterations; default:", "agent.md's maxIterations, else 50)"],
  },
  "max-iterations": { type: "string", value: "N", aliasOf: "max-turns" },
  "system-prompt": { type: "string", value: "TEXT", help: "instead of agent.md's body" },
  "append-system-prompt": {
    type: "string",
    value: "TEXT",
    help: "after the system prompt (body, environment, memory)",
  },
  continue: { type: "boolean", short: "c", help: "continue the project's most recent session" },
  resume: { type: "string", short: "r", value: "ID", help: "continue session ID (see 'agentmd sessions')" },
  ...PERMISSION_FLAGS,
  sandbox: {
    type: "boolean",
    help: [
      "run Bash commands inside bubblewrap: writable only where the",
      "lists allow writing, Read denies hidden, no network but",
      "WebFetch's hosts (as agent.md's 'sandbox: true')",
    ],
  },
  "json-schema": {
    type: "string",
    value: "SCHEMA",
    help: [
      "the answer must match this JSON Schema (type object): the",
      "model answers through a StructuredOutput tool; -p",
      "--output-format json gives it as structured_output",
    ],
  },
  "max-budget-usd": {
    type: "string",
    value: "N",
    help: [
      "stop once the session (subagents included) has spent N US",
      "dollars: no further request, exit 1 (error_max_budget_usd)",
    ],
  },
  "fallback-model": {
    type: "string",
    multiple: true,
    value: "M",
    help: [
      "when the model is overloaded after its retries, send the request",
      "to M instead (repeat, or M1,M2, for more; over agent.md's",
      "fallbackModel); the run goes on with the model that answered",
    ],
  },
  ...REASONING_FLAGS,
  "plugin-dir": {
    type: "string",
    multiple: true,
    value: "DIR",
    help: ["run with the plugin in DIR too (repeat for more; see", "docs/plugins.md)"],
  },
  record: { type: "string", value: "FILE", help: "store every model exchange in FILE (JSONL)" },
  replay: { type: "string", value: "FILE", help: "answer from a recording: no network, no API key" },
  cwd: { type: "string", value: "DIR", help: "the working folder for tools (default: the current folder)" },
  verbose: { type: "boolean", help: "with -p: show the run on stderr" },
} as const satisfies OptionTable;

/** The flags of `run` and `chat`, spelled as Claude Code spells them (agentmd's own names too). */
export const SESSION_FLAGS = { ...SESSION_OWN_FLAGS, ...HELP_OPTION } as const satisfies OptionTable;

/** `agentmd acp`'s: a conversation's, but for what each editor session chooses (its folder, a saved session to load). */
const {
  continue: _c,
  resume: _r,
  verbose: _v,
  cwd: _d,
  "json-schema": _j,
  ...ACP_OWN_FLAGS
} = SESSION_OWN_FLAGS;
export const ACP_FLAGS = { ...ACP_OWN_FLAGS, ...HELP_OPTION } as const satisfies OptionTable;

/** What `run` adds: one run, its agent, how its output is written, and the wrappers' flags. */
export const RUN_FLAGS = {
  print: {
    type: "boolean",
    short: "p",
    help: [
      "Claude Code's output: the answer alone, or its message",
      "shapes with --output-format json|stream-json",
    ],
  },
  "output-format": {
    type: "string",
    value: "F",
    help: [
      "text, json (one 'result' message) or stream-json ('system'",
      "init, 'assistant', 'user' and 'result' messages, as Claude",
      "Code writes them)",
    ],
  },
  output: {
    type: "string",
    value: "F",
    help: [
      "agentmd's own: text (default), json (the run's result) or",
      "stream-json (every agentmd event as one JSON line)",
    ],
  },
  agent: {
    type: "string",
    value: "NAME",
    help: "run the subagent NAME instead (its tools: main's ∩ its own)",
  },
  ...SESSION_OWN_FLAGS,
  ...WRAPPER_FLAGS,
  ...HELP_OPTION,
} as const satisfies OptionTable;

export interface SessionOptions extends ReasoningOptions {
  readonly model?: string;
  readonly maxIterations?: number;
  readonly systemPrompt?: string;
  readonly appendSystemPrompt?: string;
  /** Continue the project's most recent session (`-c`). */
  readonly continueLast?: boolean;
  readonly resume?: string;
  readonly record?: string;
  readonly replay?: string;
  readonly cwd?: string;
  readonly sandbox?: boolean;
  readonly verbose?: boolean;
  readonly permissions?: Omit<PermissionOptions, "approve">;
  /** `--json-schema`: the answer must match it (through the StructuredOutput tool). */
  readonly outputSchema?: OutputSchema;
  /** `--max-budget-usd`: what the session may spend, subagents included. */
  readonly maxBudgetUsd?: number;
  /** `--fallback-model` (repeatable, or comma-separated): models for an overloaded request, in order. */
  readonly fallbackModels?: readonly string[];
  /** `--plugin-dir DIR`: plugin folders to run with (absolute). */
  readonly pluginDirs?: readonly string[];
}

type SessionValues = {
  model?: string;
  "max-turns"?: string;
  "max-iterations"?: string;
  "system-prompt"?: string;
  "append-system-prompt"?: string;
  continue?: boolean;
  resume?: string;
  record?: string;
  replay?: string;
  cwd?: string;
  sandbox?: boolean;
  verbose?: boolean;
  "json-schema"?: string;
  "max-budget-usd"?: string;
  "fallback-model"?: string[];
  "plugin-dir"?: string[];
} & ReasoningValues &
  Parameters<typeof permissionFlags>[0];

/** The shared flags as options; conflicting or malformed ones are usage errors. */
export function sessionOptions(v: SessionValues, cwd: string): SessionOptions {
  if (v.record && v.replay) throw new UsageError("--record and --replay cannot be used together");
  if (v.cwd !== undefined && !isFolder(path.resolve(cwd, v.cwd)))
    throw new UsageError(`--cwd: no such folder: ${v.cwd}`);
  if (v.continue && v.resume) throw new UsageError("--continue and --resume cannot be used together");
  const badModel = v.model ? modelNameProblem(v.model) : undefined;
  if (badModel) throw new UsageError(`--model: ${badModel}`);
  const turns = v["max-turns"] ?? v["max-iterations"];
  let maxIterations: number | undefined;
  if (turns !== undefined) {
    maxIterations = Number(turns);
    if (!Number.isInteger(maxIterations) || maxIterations < 1)
      throw new UsageError(`--max-turns must be a whole number of at least 1, not '${turns}'`);
  }
  const permissions = permissionFlags(v);
  const outputSchema = jsonSchemaFlag(v["json-schema"]);
  const maxBudgetUsd = budgetFlag(v["max-budget-usd"]);
  const fallbackModels = (v["fallback-model"] ?? []).flatMap((m) => m.split(",")).map((m) => m.trim());
  if (fallbackModels.some((m) => m === ""))
    throw new UsageError("--fallback-model needs a model id or alias (sonnet, opus, haiku)");
  const pluginDirs = (v["plugin-dir"] ?? []).map((d) => path.resolve(cwd, d));
  for (const d of pluginDirs) if (!isFolder(d)) throw new UsageError(`--plugin-dir: no such folder: ${d}`);
  return {
    ...reasoningOptions(v),
    ...(pluginDirs.length > 0 && { pluginDirs }),
    ...(fallbackModels.length > 0 && { fallbackModels }),
    ...(outputSchema && { outputSchema }),
    ...(maxBudgetUsd !== undefined && { maxBudgetUsd }),
    ...(v.model && { model: v.model }),
    ...(maxIterations !== undefined && { maxIterations }),
    ...(v["system-prompt"] !== undefined && { systemPrompt: v["system-prompt"] }),
    ...(v["append-system-prompt"] !== undefined && { appendSystemPrompt: v["append-system-prompt"] }),
    ...(v.continue && { continueLast: true }),
    ...(v.resume && { resume: v.resume }),
    ...(v.record && { record: v.record }),
    ...(v.replay && { replay: v.replay }),
    ...(v.cwd && { cwd: v.cwd }),
    ...(v.sandbox && { sandbox: true }),
    ...(v.verbose && { verbose: true }),
    ...(Object.keys(permissions).length > 0 && { permissions }),
  };
}

/** `--json-schema '<schema>'`: JSON text of a JSON Schema describing an object. */
export function jsonSchemaFlag(text: string | undefined): OutputSchema | undefined {
  if (text === undefined) return undefined;
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--json-schema must be a JSON Schema as JSON text: ${(e as Error).message}`);
  }
  const problems = outputSchemaProblems(schema);
  if (problems.length > 0) throw new UsageError(`--json-schema: ${describeSchemaProblems(problems)}`);
  return schema as OutputSchema;
}

/** `--max-budget-usd N`: US dollars above 0. */
export function budgetFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const usd = Number(text);
  if (text.trim() === "" || !Number.isFinite(usd) || usd <= 0)
    throw new UsageError(`--max-budget-usd must be a number of US dollars above 0, not '${text}'`);
  return usd;
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
