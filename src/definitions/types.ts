import type { Effort, Thinking } from "./effort-thinking.js";
import type { HookEventName } from "./hook-events.js";
import type { PermissionMode } from "./permission-modes.js";

/** The four markdown surfaces agentmd reads. */
export type Surface = "main" | "agent" | "skill" | "command";

export const SURFACES: readonly Surface[] = ["main", "agent", "skill", "command"];

export type Severity = "error" | "warning" | "info";

/** A place in a source file; line and column are 1-based. */
export interface SourcePos {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface Diagnostic extends SourcePos {
  readonly severity: Severity;
  /** Stable, kebab-case; tests and `--json` consumers key on it. */
  readonly code: string;
  readonly message: string;
  readonly surface?: Surface;
}

/** One entry of an allow-list or deny list: `Name` or `Name(pattern)`. */
export interface ToolEntry {
  /** The tool name, with a case-only mismatch of a built-in already folded (`read` → `Read`). */
  readonly name: string;
  /** The text between the parentheses, as written; absent for a name-only entry. */
  readonly pattern?: string;
  /** The entry exactly as written. */
  readonly raw: string;
  readonly at: SourcePos;
}

/** A parsed `allowed-tools` / `tools` / `disallowed-tools` value. */
export interface ToolList {
  /** The key as written (`tools`, `allowed-tools`, `disallowedTools`, …). */
  readonly key: string;
  readonly entries: readonly ToolEntry[];
  readonly at: SourcePos;
}

export type ModelSetting = string;

export interface HookEntry {
  readonly matcher: string;
  readonly command: string;
  /** Seconds before the hook is stopped (a PreToolUse hook that times out blocks its call). */
  readonly timeout?: number;
  /** Not run, and why: a PreToolUse call it matches is refused with this sentence (see CommandHook). */
  readonly withheld?: string;
  /** Variables beside the run's (a plugin's hooks get `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The folder it runs in, instead of the run's (a plugin's hooks run in the project folder). */
  readonly cwd?: string;
  /** Where it was written (`user`, `project`, `local` settings, `plugin NAME`, …), for messages and the audit. */
  readonly origin?: string;
}

/** Each event's hooks, in the order they run. */
export type HooksSetting = { readonly [E in HookEventName]?: readonly HookEntry[] };

interface DefinitionBase {
  readonly surface: Surface;
  readonly name: string;
  readonly description?: string;
  /** Absolute path of the markdown file. */
  readonly file: string;
  /** The folder the surface folders hang from (holds `agent.md`, `agents/`, `skills/`, …). */
  readonly root: string;
  /** The markdown body: the prompt. */
  readonly body: string;
  /** 1-based line of the file on which the body starts. */
  readonly bodyLine: number;
  readonly allowedTools?: ToolList;
  readonly disallowedTools?: ToolList;
  readonly model?: ModelSetting;
  /** Every frontmatter key as parsed (plain data, no prototype), known or not. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /**
   * `sandbox: true` or a map: this definition's runs, and every run they start, run
   * their commands inside the OS sandbox. Absent when the key is absent or `false`.
   */
  readonly sandbox?: SandboxSetting;
  /**
   * `outputSchema`: a JSON Schema (type object) the run's answer must match. The run is offered a
   * StructuredOutput tool taking it; a valid call ends the run with that object as its answer.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** `effort`: how much effort the model puts into this definition's runs (`output_config.effort`). */
  readonly effort?: Effort;
  /** `thinking`: a budget of thinking tokens, `adaptive` or `disabled`, for this definition's runs. */
  readonly thinking?: Thinking;
  /** The plugin it comes from: its name is namespaced (`plugin:name`) and `${CLAUDE_PLUGIN_ROOT}` put in. */
  readonly plugin?: PluginRef;
}

/**
 * The sandbox a run's commands start in, as written once normalised: `true` is
 * `{ allowedDomains: [] }`. The sandbox's network is what WebFetch allows plus `allowedDomains`.
 */
export interface SandboxSetting {
  /** Hosts commands may reach through the sandbox's proxy beside WebFetch's: `example.com`, `*.example.com`. */
  readonly allowedDomains: readonly string[];
}

/** `sandbox` as written in frontmatter or in code: on, off, or on with options. */
export type SandboxInput = boolean | { readonly allowedDomains?: readonly string[] };

export interface MainAgentDefinition extends DefinitionBase {
  readonly surface: "main";
  readonly maxIterations?: number;
  readonly maxDepth?: number;
  readonly maxTokens?: number;
  readonly schemaValidation?: "off" | "warn" | "enforce";
  readonly promptCaching?: boolean;
  /** `false`: the main agent gets no CLAUDE.md / AGENTS.md context and no environment block. */
  readonly memory?: boolean;
  readonly toolConcurrency?: {
    readonly enabled?: boolean;
    readonly maxConcurrency?: number;
    readonly perBatchMax?: number;
  };
  readonly hooks?: HooksSetting;
  readonly baseUrl?: string;
  /** How long a model response may stay silent (ms) before it is given up and retried. */
  readonly idleTimeoutMs?: number;
  /** MCP servers of the whole project (beside `.mcp.json`'s), or `.mcp.json` servers by name. */
  readonly mcpServers?: readonly McpServerRef[];
  /** Seconds an MCP server may take to start or to answer one call. */
  readonly mcpTimeout?: number;
  /** When tool definitions are left out for ToolSearch (`auto`, `auto:N`, true, false). */
  readonly toolSearch?: string | boolean;
  /** US dollars the session's runs (the main agent's and all they start) may spend together. */
  readonly maxBudgetUsd?: number;
  /** Models a request goes to, in order, when the model is overloaded after its retries. */
  readonly fallbackModel?: readonly string[];
  /** The first user turn of a chat session; before the prompt of `-p` and batch runs. */
  readonly initialPrompt?: string;
}

export interface SubagentDefinition extends DefinitionBase {
  readonly surface: "agent";
  readonly description: string;
  readonly maxIterations?: number;
  readonly hooks?: HooksSetting;
  /** MCP servers defined inline live only for this subagent's runs (and their children's). */
  readonly mcpServers?: readonly McpServerRef[];
  /** US dollars one run of this subagent (with what it starts) may spend, within its caller's budget. */
  readonly maxBudgetUsd?: number;
  readonly fallbackModel?: readonly string[];
  /** Its runs approve calls in this mode or their caller's, whichever is narrower (`narrowerMode`). */
  readonly permissionMode?: PermissionMode;
  /** Skills whose content is in its context from its first turn (each one it may invoke). */
  readonly skills?: readonly string[];
  /** The first user turn when it runs as the session's agent (`--agent`); before a Task's prompt. */
  readonly initialPrompt?: string;
  /** `true`: a Task call returns at once with a task id, and the answer comes to the caller when it ends. */
  readonly background?: boolean;
  /** `worktree`: each run works in a temporary git worktree, its only writable folder. */
  readonly isolation?: "worktree";
}

interface InvocableFields {
  readonly argumentHint?: string;
  readonly disableModelInvocation?: boolean;
  readonly userInvocable?: boolean;
  readonly context?: "inline" | "fork";
  readonly agent?: string;
}

export interface SkillDefinition extends DefinitionBase, InvocableFields {
  readonly surface: "skill";
  readonly description: string;
  /** The skill's folder; `${SKILL_DIR}` points here. */
  readonly dir: string;
  readonly hooks?: HooksSetting;
}

export interface CommandDefinition extends DefinitionBase, InvocableFields {
  readonly surface: "command";
}

export type Definition = MainAgentDefinition | SubagentDefinition | SkillDefinition | CommandDefinition;

/** What happened to each file looked at; `shadowed`: loaded, but a same-named one is used instead. */
export type FileOutcome = "loaded" | "documentation" | "failed" | "shadowed";

export interface FileReport {
  readonly file: string;
  readonly surface: Surface;
  readonly outcome: FileOutcome;
}

export interface LoadResult {
  readonly definitions: readonly Definition[];
  readonly diagnostics: readonly Diagnostic[];
  readonly files: readonly FileReport[];
  /** The enabled plugins whose definitions are among these (their hooks and servers with them). */
  readonly plugins: readonly Plugin[];
  /** The errors of the enabled plugins' own files (plugin.json, hooks, servers): a run refuses on any. */
  readonly pluginErrors?: readonly Diagnostic[];
}

/** How definitions are loaded. */
export interface LoadOptions {
  /**
   * The tools a run can have (with aliases such as `Agent`). List entries are checked against them:
   * unknown names are warned about, a case-only mismatch (`read`) is taken as the tool. Without
   * them, names are kept as written and not checked.
   */
  readonly toolNames?: readonly string[];
  /**
   * The user's own definitions folder (`~/.claude`), read before the project's: a project
   * definition of the same name takes the place of a user's (an info diagnostic says so).
   */
  readonly userDir?: string;
  /** Plugin folders given on the command line (`--plugin-dir`): they win over an enabled plugin of the same name. */
  readonly pluginDirs?: readonly string[];
}

/** A tool list as written in code: a comma-separated string or a list of entries. */
export type ToolListInput = string | readonly string[];

/** A hook entry as written in frontmatter: `{ matcher, command }` or Claude Code's nested form. */
export interface HookEntryInput {
  readonly matcher?: string;
  readonly command?: string;
  readonly timeout?: number;
  readonly hooks?: readonly {
    readonly type?: "command";
    readonly command: string;
    readonly timeout?: number;
  }[];
}

export type HooksInput = { readonly [E in HookEventName]?: readonly HookEntryInput[] };

interface CommonInput {
  /** The markdown body: the prompt. */
  readonly body?: string;
  readonly description?: string;
  readonly model?: string;
  readonly "allowed-tools"?: ToolListInput;
  readonly "disallowed-tools"?: ToolListInput;
  readonly disallowedTools?: ToolListInput;
  /** Run commands inside the OS sandbox; below agent.md it can only turn it on. */
  readonly sandbox?: SandboxInput;
  /** A JSON Schema (type object) the answer must match, through the StructuredOutput tool. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly effort?: Effort;
  readonly thinking?: Thinking;
}

interface InvocableInput {
  readonly "argument-hint"?: string;
  readonly "disable-model-invocation"?: boolean;
  readonly "user-invocable"?: boolean;
  readonly context?: "inline" | "fork";
  readonly agent?: string;
}

/** agent.md as an object: its frontmatter keys (as in the file) and `body`. */
export interface MainAgentInput extends CommonInput {
  readonly name?: string;
  readonly tools?: ToolListInput;
  readonly maxIterations?: number;
  readonly maxDepth?: number;
  readonly maxTokens?: number;
  readonly schemaValidation?: "off" | "warn" | "enforce";
  readonly promptCaching?: boolean;
  readonly memory?: boolean;
  readonly toolConcurrency?:
    | boolean
    | { readonly enabled?: boolean; readonly maxConcurrency?: number; readonly perBatchMax?: number };
  readonly hooks?: HooksInput;
  readonly baseUrl?: string;
  readonly idleTimeoutMs?: number;
  readonly mcpServers?: McpServersInput;
  readonly mcpTimeout?: number;
  readonly toolSearch?: "auto" | `auto:${number}` | boolean;
  readonly maxBudgetUsd?: number;
  readonly fallbackModel?: string | readonly string[];
  readonly initialPrompt?: string;
}

/** `mcpServers` as written: names and `{ name: definition }` items, or a map of names to definitions. */
export type McpServersInput =
  | readonly (string | Readonly<Record<string, McpServerConfigInput>>)[]
  | Readonly<Record<string, McpServerConfigInput>>;

/**
 * One MCP server as `.mcp.json` (Claude Code's format) and `mcpServers` write it: the checked
 * definition's keys, with `type` optional (stdio, or http when a `url` is given) and its aliases.
 */
export interface McpServerConfigInput extends Omit<McpServerConfig, "type"> {
  readonly type?: McpTransport | "streamable-http";
}

/** How agentmd talks to an MCP server. */
export type McpTransport = "stdio" | "http" | "sse";

/** One server's definition, checked (its strings may still hold `${VAR}`). */
export interface McpServerConfig {
  readonly type: McpTransport;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** agentmd's own key: this server's tools are found through ToolSearch, never sent up front. */
  readonly defer?: boolean;
}

/** An entry of `mcpServers` in a definition: a server of `.mcp.json` by name, or one defined inline. */
export type McpServerRef =
  | { readonly kind: "name"; readonly name: string; readonly at: SourcePos }
  | {
      readonly kind: "inline";
      readonly name: string;
      readonly config: McpServerConfig;
      readonly at: SourcePos;
    };

export interface SubagentInput extends CommonInput {
  readonly name: string;
  readonly description: string;
  readonly tools?: ToolListInput;
  readonly maxIterations?: number;
  readonly maxTurns?: number;
  readonly hooks?: HooksInput;
  readonly mcpServers?: McpServersInput;
  readonly maxBudgetUsd?: number;
  readonly fallbackModel?: string | readonly string[];
  readonly permissionMode?: PermissionMode;
  readonly skills?: string | readonly string[];
  readonly initialPrompt?: string;
  readonly background?: boolean;
  readonly isolation?: "worktree";
}

export interface SkillInput extends CommonInput, InvocableInput {
  readonly name: string;
  readonly description: string;
  readonly tools?: ToolListInput;
  readonly hooks?: HooksInput;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A command as an object; `name` is its path below commands/ (`git:commit`). */
export interface CommandInput extends CommonInput, InvocableInput {
  readonly name: string;
  readonly tools?: ToolListInput;
}

/** Where a plugin comes from and whose it is: what a definition of it carries. */
export interface PluginRef {
  /** `plugin.json`'s `name`: the namespace of its commands, skills, agents and servers. */
  readonly name: string;
  /** `name@marketplace`, or `name@--plugin-dir` for a folder given on the command line. */
  readonly id: string;
  /** The plugin's folder (absolute): `${CLAUDE_PLUGIN_ROOT}`. */
  readonly root: string;
  /**
   * `user`: the user's own code — enabled by the user's settings from a folder of theirs (a
   * user-scope install, a marketplace they declared) or given as `--plugin-dir`; `project`: any
   * other (enabled by the repository's settings, or read from a marketplace the repository
   * declares), so its code is the folder's and trusted with it.
   */
  readonly owner: "project" | "user";
}

export interface PluginServer {
  /** `plugin_<plugin>_<server>`: tools are `mcp__plugin_<plugin>_<server>__<tool>`. */
  readonly name: string;
  readonly config: McpServerConfig;
  readonly origin: SourcePos;
}

export interface Plugin extends PluginRef {
  readonly marketplace?: string;
  readonly version: string;
  /** Which setting enabled it: a settings scope, or `dir` for `--plugin-dir`. */
  readonly scope: "user" | "project" | "local" | "dir";
  readonly enabled: boolean;
  /** `~/.claude/plugins/data/<plugin>-<marketplace>`: `CLAUDE_PLUGIN_DATA` of its hooks. */
  readonly dataDir: string;
  /** From `hooks/hooks.json`: commands with the plugin's root put in, run in the project folder. */
  readonly hooks?: HooksSetting;
  readonly servers: readonly PluginServer[];
}
