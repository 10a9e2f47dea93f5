import { FOREIGN_HOOK_KEYS, FOREIGN_HOOK_TYPES, HOOK_EVENTS } from "./check-hooks.js";
import { EFFORT_LEVELS, MIN_THINKING_BUDGET } from "./effort-thinking.js";
import { PERMISSION_MODES } from "./permission-modes.js";
import type { Surface } from "./types.js";

/**
 * One JSON Schema per surface, for the values of the keys agentmd acts on. Key spelling (unknown,
 * misspelled and foreign keys) is judged before the schema runs, so the schemas allow extra keys.
 * Tool lists are parsed by `parseToolList`, so here they accept anything.
 */
type JsonSchema = Record<string, unknown>;

const anyValue: JsonSchema = {};
const str: JsonSchema = { type: "string" };
const bool: JsonSchema = { type: "boolean" };
const positiveInt: JsonSchema = { type: "integer", minimum: 1 };

// Hooks are judged by checkHooks in the loader; this schema says the same for editors.
const timeout: JsonSchema = { type: "number", exclusiveMinimum: 0 };
const foreignHookKeys: Record<string, JsonSchema> = Object.fromEntries(
  FOREIGN_HOOK_KEYS.map((k) => [k, anyValue]),
);
const commandHook: Record<string, JsonSchema> = {
  type: { enum: ["command"] },
  command: { type: "string", minLength: 1 },
  timeout,
  ...foreignHookKeys,
};
const hookEntry: JsonSchema = {
  type: "object",
  anyOf: [
    {
      type: "object",
      properties: {
        matcher: str,
        hooks: {
          type: "array",
          items: {
            anyOf: [
              {
                type: "object",
                properties: commandHook,
                required: ["command"],
                additionalProperties: false,
              },
              {
                type: "object",
                properties: { type: { enum: [...FOREIGN_HOOK_TYPES] } },
                required: ["type"],
              },
            ],
          },
        },
      },
      required: ["hooks"],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: { matcher: str, ...commandHook },
      required: ["command"],
      additionalProperties: false,
    },
  ],
};

const hooks: JsonSchema = {
  type: "object",
  properties: Object.fromEntries(HOOK_EVENTS.map((e) => [e, { type: "array", items: hookEntry }])),
};

const lists: Record<string, JsonSchema> = {
  "allowed-tools": anyValue,
  tools: anyValue,
  "disallowed-tools": anyValue,
  disallowedTools: anyValue,
};

// The sandbox: true/false, or a map of options; domains are checked by readSandboxField.
const sandbox: JsonSchema = {
  type: ["boolean", "object"],
  properties: { allowedDomains: { type: "array", items: str } },
  additionalProperties: false,
};

// MCP servers: a list of names and one-key maps, or a map; entries are checked by readMcpServersField.
const mcpServers: JsonSchema = { type: ["array", "object"] };

// A JSON Schema the run's answer must match (compiled and checked by readOutputSchemaField).
const outputSchema: JsonSchema = { type: "object" };
// US dollars a run (with everything it starts) may spend.
const maxBudgetUsd: JsonSchema = { type: "number", exclusiveMinimum: 0 };
// Models to use, in order, when the model is overloaded: one id or alias, or a list.
const fallbackModel: JsonSchema = { type: ["string", "array"], items: { type: "string", minLength: 1 } };
// How much effort the model puts into a response (the API's output_config.effort).
const effort: JsonSchema = { enum: [...EFFORT_LEVELS] };
// Extended thinking: a budget of tokens, adaptive or disabled, or the API's object for one (checked by readThinkingField, which says it in one sentence).
const thinking: JsonSchema = {
  anyOf: [
    { type: "integer", minimum: MIN_THINKING_BUDGET },
    { enum: ["adaptive", "disabled"] },
    {
      type: "object",
      required: ["type", "budget_tokens"],
      properties: {
        type: { const: "enabled" },
        budget_tokens: { type: "integer", minimum: MIN_THINKING_BUDGET },
      },
      additionalProperties: false,
    },
    {
      type: "object",
      required: ["type"],
      properties: { type: { enum: ["adaptive", "disabled"] } },
      additionalProperties: false,
    },
  ],
};
const reasoning: Record<string, JsonSchema> = { effort, thinking };

// Claude Code's subagent keys, acted on (docs/formats.md, "Subagent keys").
const subagentKeys: Record<string, JsonSchema> = {
  // The approval mode of its runs, never wider than its caller's.
  permissionMode: { enum: [...PERMISSION_MODES] },
  // Skills whose content is in its context from the start: a name, or a list of names.
  skills: { type: ["string", "array"], items: { type: "string", minLength: 1 } },
  // The first user turn when it runs as the session's agent; before the task prompt below it.
  initialPrompt: { type: "string", minLength: 1 },
  // The Task call returns at once; the answer comes to the caller when the subagent ends.
  background: bool,
  // Its runs work in a temporary git worktree, their only writable folder.
  isolation: { enum: ["worktree"] },
};

const invocable: Record<string, JsonSchema> = {
  "argument-hint": str,
  "disable-model-invocation": bool,
  "user-invocable": bool,
  context: { enum: ["inline", "fork"] },
  agent: str,
};

export const SURFACE_SCHEMAS: Record<Surface, JsonSchema> = {
  main: {
    type: "object",
    properties: {
      name: str,
      description: str,
      model: str,
      ...lists,
      sandbox,
      maxIterations: positiveInt,
      maxDepth: { type: "integer", minimum: 0 },
      maxTokens: positiveInt,
      schemaValidation: { enum: ["off", "warn", "enforce"] },
      promptCaching: bool,
      // `memory: false`: no CLAUDE.md / AGENTS.md context and no environment block.
      memory: bool,
      // `toolConcurrency: false` is accepted too; it is read as `{ enabled: false }` before this runs.
      toolConcurrency: {
        type: "object",
        properties: { enabled: bool, maxConcurrency: positiveInt, perBatchMax: positiveInt },
        additionalProperties: false,
      },
      hooks,
      baseUrl: { type: "string", pattern: "^https?://" },
      idleTimeoutMs: positiveInt,
      mcpServers,
      // Seconds an MCP server may take to start or to answer one call.
      mcpTimeout: { type: "number", exclusiveMinimum: 0 },
      // When tool definitions are left out for ToolSearch: auto (over 10% of the context), auto:N (N%), true, false.
      toolSearch: { type: ["string", "boolean"], pattern: "^auto(:[0-9]{1,2})?$" },
      outputSchema,
      maxBudgetUsd,
      fallbackModel,
      ...reasoning,
      // The first user turn of a session (chat), or before the prompt (-p, batch).
      initialPrompt: subagentKeys.initialPrompt as JsonSchema,
    },
  },
  agent: {
    type: "object",
    properties: {
      name: str,
      description: str,
      model: str,
      ...lists,
      sandbox,
      maxIterations: positiveInt,
      maxTurns: positiveInt,
      hooks,
      mcpServers,
      outputSchema,
      maxBudgetUsd,
      fallbackModel,
      ...reasoning,
      ...subagentKeys,
    },
    required: ["name", "description"],
  },
  skill: {
    type: "object",
    properties: {
      // The Agent Skills rule (lowercase letters, digits, single hyphens, at most 64) is checked
      // where the skill is loaded: a name that breaks it is a warning, and the folder's name is used.
      name: str,
      description: str,
      model: str,
      ...lists,
      sandbox,
      ...invocable,
      hooks,
      license: str,
      compatibility: str,
      metadata: { type: "object" },
      outputSchema,
      ...reasoning,
    },
    required: ["description"],
  },
  command: {
    type: "object",
    properties: {
      name: anyValue,
      description: str,
      model: str,
      ...lists,
      sandbox,
      ...invocable,
      outputSchema,
      ...reasoning,
    },
  },
};

/** Keys whose value must be a string; a scalar of another type is coerced with a warning. */
/**
 * The schemas the loader validates values with: the surface's, with any value taken for the keys
 * that have readers of their own (hooks by checkHooks, `thinking` by readThinkingField, each saying
 * a problem in its own words). Their validators are precompiled at build time
 * (scripts/build-validators.mjs), and without those two parts they are a small file to load.
 */
export const CHECKED_SCHEMAS: Record<Surface, JsonSchema> = {
  main: judgedHere(SURFACE_SCHEMAS.main),
  agent: judgedHere(SURFACE_SCHEMAS.agent),
  skill: judgedHere(SURFACE_SCHEMAS.skill),
  command: judgedHere(SURFACE_SCHEMAS.command),
};

function judgedHere(schema: JsonSchema): JsonSchema {
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const key of ["hooks", "thinking"]) if (key in properties) properties[key] = anyValue;
  return { ...schema, properties };
}

export const STRING_KEYS = new Set([
  "name",
  "description",
  "model",
  "argument-hint",
  "agent",
  "initialPrompt",
  "license",
  "compatibility",
  "baseUrl",
  "context",
]);

/** Keys whose value must be a boolean; `"true"`/`"false"` strings are coerced with a warning. */
export const BOOLEAN_KEYS = new Set([
  "disable-model-invocation",
  "user-invocable",
  "promptCaching",
  "sandbox",
  "memory",
  "background",
]);

export const ALLOW_LIST_KEYS = ["allowed-tools", "tools"] as const;
export const DENY_LIST_KEYS = ["disallowed-tools", "disallowedTools"] as const;

/**
 * Keys Claude Code and other tools define that agentmd accepts and ignores (info diagnostic),
 * plus metadata keys common in public collections.
 */
export const FOREIGN_KEYS = new Set([
  "color",
  "memory",
  "when_to_use",
  "when-to-use",
  "paths",
  "shell",
  "version",
  "tags",
  "origin",
  "title",
  "author",
  "category",
  "keywords",
  "globs",
  "impact",
  "impactDescription",
  "arguments",
  "hide-from-slash-command-tool",
  "license",
  "metadata",
  "compatibility",
  "icon",
  "emoji",
]);

export function knownKeys(surface: Surface): ReadonlySet<string> {
  return KNOWN[surface];
}

const KNOWN: Record<Surface, ReadonlySet<string>> = {
  main: new Set(Object.keys(SURFACE_SCHEMAS.main.properties as object)),
  agent: new Set(Object.keys(SURFACE_SCHEMAS.agent.properties as object)),
  skill: new Set(Object.keys(SURFACE_SCHEMAS.skill.properties as object)),
  command: new Set(Object.keys(SURFACE_SCHEMAS.command.properties as object)),
};

export const SURFACE_LABEL: Record<Surface, string> = {
  main: "agent.md",
  agent: "subagents",
  skill: "skills",
  command: "commands",
};
