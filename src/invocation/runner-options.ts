import type { Effort, Thinking } from "../definitions/effort-thinking.js";
import type {
  CommandInput,
  MainAgentInput,
  McpServerConfigInput,
  SandboxInput,
  SkillInput,
  SubagentInput,
} from "../definitions/types.js";
import type { Budget } from "../loop/budget.js";
import type { Hooks } from "../loop/hooks.js";
import type { TranscriptStore } from "../loop/transcript.js";
import type { Elicit } from "../mcp/elicitation.js";
import type { Model } from "../model/model.js";
import type { Price } from "../model/models.js";
import type { BuiltinToolDeps } from "../tools/builtin/index.js";
import type { SchemaValidationMode, Tool } from "../tools/types.js";
import type { Inventory } from "../trust/inventory/inventory.js";
import type { PermissionOptions } from "./approvals.js";

/** Which model id runs ask for and what it costs, whoever serves it. */
export interface ModelChoice {
  /** A model id or alias; overrides agent.md. */
  readonly id?: string;
  /** Prices per million tokens by model id prefix, over the built-in table. */
  readonly prices?: Readonly<Record<string, Price>>;
  /** Models (ids or aliases), in order, for a request whose model is overloaded after its retries. */
  readonly fallback?: readonly string[];
  /** How much effort the model puts in (`output_config.effort`), over agent.md's `effort`. */
  readonly effort?: Effort;
  /** A thinking budget of tokens, `adaptive` or `disabled`, over agent.md's `thinking`. */
  readonly thinking?: Thinking;
}

/** The Anthropic Messages API as the runner's model: its credential, address, retries and recording. */
export interface ApiModelOptions extends ModelChoice {
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Retries of a request that failed before any output (429, 5xx, a reset, a silence); default 2. */
  readonly maxRetries?: number;
  /** How long a response may stay silent before it is given up and retried; default 120 s (or ANTHROPIC_TIMEOUT_MS). */
  readonly idleTimeoutMs?: number;
  readonly fetch?: typeof globalThis.fetch;
  /** Store every model exchange in this JSONL file. */
  readonly record?: string;
  /** Answer from this recording: no network, no key. */
  readonly replay?: string;
}

/** How a runner is built; every group is optional. Settings given here win over agent.md's. */
export interface RunnerOptions {
  /**
   * The folder holding agent.md and the other definitions; also where transcripts go. Default: the
   * project found from `cwd` as the CLI finds it (`findProjectRoot`); `false` loads no files (only
   * the definitions given here).
   */
  readonly projectDir?: string | false;
  /** The working folder tools run in (default: projectDir, else the process's). */
  readonly cwd?: string;
  /**
   * Run the project's files without their code, as the CLI runs a folder that is not trusted
   * (docs/trust.md): no MCP server of `.mcp.json` or of a definition starts, no hook of the
   * project's files runs (a PreToolUse call one of them would judge is refused), the project
   * settings' `env` is not applied and agent.md's `baseUrl` is not used; every list, deny and ask
   * still binds. The user's own files and what is given here in code are not touched. Default
   * false: a library caller chose its project, and runs it as given (custom tools are only those
   * passed in `tools.extra`).
   */
  readonly restricted?: boolean;
  /**
   * The project's code as found when it was opened (`openProject` passes the one its trust was
   * judged on): its files are protected from every write of the run. Default: read from the files.
   */
  readonly inventory?: Inventory;
  /** Claude Code plugin folders to run with (`--plugin-dir`); one wins over an enabled plugin of its name. */
  readonly pluginDirs?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The user's own definitions (and settings) folder; default `~/.claude` of `env.HOME`. Its
   * subagents, skills and commands load beside the project's, which win a name; `false`: none.
   */
  readonly userDir?: string | false;
  /**
   * The main agent as an object, instead of (or over) agent.md: its frontmatter keys and `body`,
   * validated by the same schema as the file (errors throw a ConfigError listing them).
   */
  readonly main?: MainAgentInput;
  /** Subagents, skills and commands as objects, beside (and over same-named) ones from files. */
  readonly agents?: readonly SubagentInput[];
  readonly skills?: readonly SkillInput[];
  readonly commands?: readonly CommandInput[];
  /**
   * The model runs use: options for the Anthropic API (the default provider), or a `Model` of your
   * own (any object with `turn`; it may carry `id` and `prices` too), which every run then uses.
   */
  readonly model?: ApiModelOptions | (Model & ModelChoice);
  readonly limits?: {
    readonly maxIterations?: number;
    readonly maxTokens?: number;
    readonly maxDepth?: number;
    /** Tokens the model takes in one request (default 200,000): at 80% a conversation is compacted. */
    readonly contextWindow?: number;
    /**
     * US dollars the runner's runs may spend together, subagents included (over agent.md's
     * `maxBudgetUsd`); once reached no request is sent and the run ends `limit`.
     */
    readonly maxBudgetUsd?: number;
  };
  /**
   * A JSON Schema (type object) the main agent's answer must match (over agent.md's `outputSchema`):
   * the run answers through a StructuredOutput tool, and its result carries `structuredOutput`.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly tools?: {
    /** More tools, registered beside the built-in ones. */
    readonly extra?: readonly Tool[];
    /** `false` for no built-in tools; or their injected file system and process access. */
    readonly builtin?: false | BuiltinToolDeps;
    readonly schemaValidation?: SchemaValidationMode;
    /**
     * When tool definitions are left out of requests until ToolSearch finds them: `auto` (when
     * they would take over 10% of the context; the default), `auto:N` (N%), true (always), false.
     */
    readonly toolSearch?: "auto" | `auto:${number}` | boolean;
  };
  readonly mcp?: {
    /** Servers beside the project's `.mcp.json`, as it writes them; a same name wins over it. */
    readonly servers?: Readonly<Record<string, McpServerConfigInput>>;
    /** Read `.mcp.json` in the project folder (default true). */
    readonly mcpJson?: boolean;
    /** Milliseconds a server may take to answer one call (default 60,000; agent.md `mcpTimeout`). */
    readonly timeoutMs?: number;
    /** Milliseconds a server may take to start and list its tools (default 30,000). */
    readonly startTimeoutMs?: number;
    /**
     * Who answers a server's questions (`elicitation/create`, form mode): resolves with the user's
     * answer. Absent: each question is declined, and the run goes on. The Elicitation and
     * ElicitationResult hooks come first and last.
     */
    readonly elicit?: Elicit;
  };
  readonly concurrency?: {
    readonly enabled?: boolean;
    readonly maxConcurrency?: number;
    readonly perBatchMax?: number;
  };
  /**
   * Claude Code's approval tier: the mode (over the settings' `defaultMode`), rules that pre-approve
   * or deny, and who answers when a call needs approval (without one, such calls are denied with
   * how to allow them). Nothing here widens agent.md's list.
   */
  readonly permissions?: PermissionOptions;
  /**
   * Claude Code settings given in code (`--settings`), merged over the settings files: their deny
   * and ask rules add to the files', their allow rules pre-approve (never beyond the lists).
   */
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * The main agent's system prompt: `replace` stands instead of agent.md's body, `append` follows
   * everything else (the body, the environment, the memory).
   */
  readonly systemPrompt?: { readonly replace?: string; readonly append?: string };
  /** Hooks as functions, run after agent.md's and the settings' command hooks. */
  readonly hooks?: Hooks;
  /** Where each session's events go: `dir` (default `.agentmd/sessions/`), or a store of your own. */
  /**
   * Keep checkpoints of the files each prompt's Write, Edit, MultiEdit and NotebookEdit calls change
   * (beside the session's transcript, in a store of files), so that `rewind` can put them back.
   * Default: true.
   */
  readonly checkpoints?: boolean;
  readonly transcript?: {
    readonly enabled?: boolean;
    readonly dir?: string;
    readonly store?: TranscriptStore;
    /**
     * A run whose transcript cannot be written stops (outcome `error`, the message saying why)
     * before its next model request or tool call, rather than going on unrecorded: a batch's item
     * is resumed from its transcript, and one with a hole would run again what it had done.
     */
    readonly required?: boolean;
  };
  readonly promptCaching?: boolean;
  /**
   * Run Bash commands (and `!cmd` expansions) inside bubblewrap, with what the lists allow
   * compiled into it. `true` turns it on (with agent.md's options, if any), a map sets its options,
   * `false` turns agent.md's off. Subagents, skills and commands inherit it; none can turn it off.
   */
  readonly sandbox?: SandboxInput;
  /**
   * A budget shared with other runners (`rootBudget(usd)`): a batch's, for all its items together.
   * Each session's own `maxBudgetUsd` is a ceiling below it.
   */
  readonly budget?: Budget;
  /** Delay before retry `attempt` of an in-stream overload (tests make it 0). */
  readonly backoff?: (attempt: number) => number;
}
