// The public library API of agentmd. Named exports only; nothing runs at import time.
export {
  BUILTIN_TOOL_NAMES,
  classify,
  type DefinitionInput,
  definitionFromObject,
  discoverPaths,
  discoverProject,
  FOREIGN_TOOL_NAMES,
  findProjectRoot,
  loadDefinitionFile,
  loadPaths,
  loadProject,
  parseEntry,
  splitToolList,
} from "./definitions/index.js";
export type {
  CommandDefinition,
  Definition,
  Diagnostic,
  FileOutcome,
  FileReport,
  LoadResult,
  MainAgentDefinition,
  Severity,
  SkillDefinition,
  SourcePos,
  SubagentDefinition,
  Surface,
  ToolEntry,
  ToolList,
} from "./definitions/types.js";
export {
  createRunner,
  type RunHandle,
  type Runner,
  type RunnerOptions,
  type RunOptions,
} from "./invocation/runner.js";
export type { CallDecision, RunEvent, RunOutcome, RunResult } from "./loop/events.js";
export type { CommandHook, FunctionHook, HookPayload, Hooks } from "./loop/hooks.js";
export { ConfigError } from "./model/client.js";
export { costOf, MODEL_ALIASES, PRICES, type Price, resolveModel } from "./model/models.js";
export {
  BUILTIN_PERMISSION_SPECS,
  compileList,
  decide,
  definitionList,
  describeChain,
  intersect,
  intersectAll,
  offered,
  resolveChain,
  UNRESTRICTED,
} from "./permissions/index.js";
export type { Decision, DenyReason, PermissionList, ToolPermissionSpec } from "./permissions/types.js";
export {
  createBuiltinTools,
  createToolRegistry,
  defineForeignTool,
  defineTool,
  fail,
  ok,
} from "./tools/index.js";
export type { Tool, ToolContext, ToolResult } from "./tools/types.js";
