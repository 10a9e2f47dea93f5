// The public library API of agentmd. Named exports only; nothing runs at import time.
import { definitionFromObject as fromObject } from "./definitions/from-object.js";
import { loadPaths as loadPathsWith, loadProject as loadProjectWith } from "./definitions/load.js";
import type { LoadOptions, LoadResult, Surface } from "./definitions/types.js";
import { builtinCatalog } from "./invocation/tool-catalog.js";

/** Loads a project folder's definitions; list entries are checked against agentmd's own tools unless told otherwise. */
export function loadProject(root: string, options: LoadOptions = {}): LoadResult {
  return loadProjectWith(root, withNames(options));
}

/** Loads whatever files and folders are given; entries are checked as `loadProject` checks them. */
export function loadPaths(paths: readonly string[], options: LoadOptions = {}): LoadResult {
  return loadPathsWith(paths, withNames(options));
}

/** A definition given as an object, validated exactly as a file is. */
export function definitionFromObject(
  surface: Surface,
  input: object,
  root: string,
  options: LoadOptions = {},
) {
  return fromObject(surface, input, root, withNames(options));
}

/** The names list entries are checked against: agentmd's own tools, with their aliases. */
export function builtinToolNames(): readonly string[] {
  return builtinCatalog().names;
}

function withNames(options: LoadOptions): LoadOptions {
  return options.toolNames ? options : { ...options, toolNames: builtinToolNames() };
}

export { UsageError } from "./cli/flags/usage-error.js";
export {
  classify,
  type DefinitionInput,
  discoverPaths,
  discoverProject,
  FOREIGN_TOOL_NAMES,
  findProjectRoot,
  parseEntry,
  splitToolList,
} from "./definitions/index.js";
// Tools from outside the runner: project custom tools, MCP server definitions, ToolSearch.
export type {
  CommandDefinition,
  CommandInput,
  Definition,
  Diagnostic,
  FileOutcome,
  FileReport,
  HooksInput,
  LoadOptions,
  LoadResult,
  MainAgentDefinition,
  MainAgentInput,
  McpServerConfig,
  McpServerConfigInput,
  McpServerRef,
  McpServersInput,
  McpTransport,
  SandboxInput,
  SandboxSetting,
  Severity,
  SkillDefinition,
  SkillInput,
  SourcePos,
  SubagentDefinition,
  SubagentInput,
  Surface,
  ToolEntry,
  ToolList,
  ToolListInput,
} from "./definitions/types.js";
export type { Approver, PermissionOptions } from "./invocation/approvals.js";
export {
  type Compacted,
  type CompactOptions,
  createRunner,
  type RunHandle,
  type Runner,
  type RunnerOptions,
  type RunOptions,
} from "./invocation/runner.js";
export type { ApiModelOptions, ModelChoice } from "./invocation/runner-options.js";
export { resolveSettings, type Settings } from "./invocation/settings.js";
export { type Budget, rootBudget, type SharedSpend } from "./loop/budget.js";
export type { CallDecision, RunErrorCode, RunEvent, RunOutcome, RunResult } from "./loop/events.js";
export type { ApprovalAnswer, ApprovalRequest } from "./loop/execute-call.js";
export type {
  CommandHook,
  FunctionHook,
  Hook,
  HookEvent,
  HookOrigin,
  HookPayload,
  HookReply,
  Hooks,
} from "./loop/hooks.js";
export { fileTranscripts, SessionBusyError, SessionError, type TranscriptStore } from "./loop/transcript.js";
export { killLiveMcpServers } from "./mcp/live-servers.js";
export { SignInNeededError } from "./mcp/oauth-provider.js";
export { type AnthropicModelOptions, createAnthropicModel } from "./model/anthropic.js";
export {
  type ApiErrorType,
  isModel,
  type Model,
  type ModelErrorCode,
  type ModelRequest,
  type TurnContext,
  type TurnOutcome,
} from "./model/model.js";
export { costOf, PRICES, type Price, resolveModel, type Usage } from "./model/models.js";
export { HelperError, ProviderSetupError } from "./model/providers/credential-helpers.js";
export { ReplayFileError } from "./model/record-replay.js";
export {
  compileList,
  decide,
  definitionList,
  denialText,
  describeChain,
  domainRule,
  intersect,
  intersectAll,
  judgesCommand,
  judgesName,
  judgesPath,
  judgesUrl,
  loadShellParser,
  offered,
  resolveChain,
  type SearchDomains,
  type ShellParser,
  searchDomains,
  UNRESTRICTED,
} from "./permissions/index.js";
export type {
  DecideContext,
  Decision,
  Denial,
  DenyReason,
  PermissionList,
  ToolPermissionSpec,
  ToolSpecs,
} from "./permissions/types.js";
export { MODEL_ALIASES } from "./shared/defaults.js";
export { AgentmdError, ConfigError, RedisUnavailableError, WriteError } from "./shared/errors.js";
export { type CustomTools, isTool, loadCustomTools } from "./tools/custom/load-custom-tools.js";
export {
  createBuiltinTools,
  createToolRegistry,
  defineForeignTool,
  defineTool,
  type ForeignToolDefinition,
  fail,
  ok,
  type RegisteredTool,
  ToolDefinitionError,
  type ToolRegistry,
  ToolRegistryError,
  webSearchDefinition,
} from "./tools/index.js";
export type { ToolSearchSetting } from "./tools/search/deferral.js";
export type {
  CommandSandbox,
  ServerTool,
  ServerToolDefinition,
  SpawnProcess,
  Todo,
  Tool,
  ToolContext,
  ToolEvent,
  ToolResult,
} from "./tools/types.js";
