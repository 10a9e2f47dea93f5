import type { ShellParser } from "../permissions/shell/shell-parser.js";
import type { PermissionList, ToolPermissionSpec } from "../permissions/types.js";
import type { SpawnProcess } from "../shared/run-process.js";
import type { BackgroundShells } from "./builtin/background-shells.js";

export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

export interface ImageBlock {
  readonly type: "image";
  readonly source: {
    readonly type: "base64";
    readonly media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
    readonly data: string;
  };
}

/** What a tool returns: text, or text and image blocks. The model sees `isError` as `is_error`. */
export interface ToolResult {
  readonly content: string | readonly (TextBlock | ImageBlock)[];
  readonly isError: boolean;
}

/** `sequential` unless a tool opts in: only side-effect-free tools may run beside others. */
export type Concurrency = "sequential" | "concurrent-safe";

/**
 * How a running call stops when the run is aborted: it watches the signal (`cooperative`), its
 * child process group is killed (`terminates-process`), or it finishes regardless.
 */
export type InterruptBehavior = "cooperative" | "terminates-process" | "not-interruptible";

export interface Logger {
  debug(message: string): void;
  warn(message: string): void;
}

/**
 * How a file was when a run last read or wrote it: its modification time and size (a rewrite within
 * one tick of the file system's clock keeps the time, rarely the size), or, for what a resumed
 * session read, only a moment it was seen before (the transcript's last write).
 */
export type SeenFile = { readonly mtimeMs: number; readonly size: number } | { readonly before: number };

/**
 * Files this run has read, as it saw them. Write and Edit consult it. One record is shared by the
 * calls of a run; JavaScript runs their bookkeeping one step at a time.
 */
export interface ReadRecord {
  markRead(absolutePath: string, seen: SeenFile): void;
  /** How the file was when this run last read or wrote it. */
  readAt(absolutePath: string): SeenFile | undefined;
}

export interface ToolContext {
  /** The run's working folder; relative paths resolve here. */
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly readRecord: ReadRecord;
  /** Environment for child processes; defaults to the process's, without API keys. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether this call may touch a path it found on its own (a file under the folder Grep searches, a
   * match of Glob): judged as if the call had named it, on its real path too. Absent: every path.
   */
  readonly mayAccess?: (absolutePath: string) => boolean;
  /**
   * Set when the run is sandboxed. A tool that starts processes starts them through
   * `sandbox.wrapSpawn(spawn)`, which runs them inside the OS sandbox of this call's list.
   */
  readonly sandbox?: CommandSandbox;
  /** The run's background commands (Bash `run_in_background`); absent outside a run. */
  readonly shells?: BackgroundShells;
  /** The id of the model's tool_use block this call answers (absent outside a model's call). */
  readonly callId?: string;
  /** Tells the run something as one of its events (TodoWrite's list); absent: nobody listens. */
  readonly report?: (event: ToolEvent) => void;
}

/** One item of the run's todo list (TodoWrite), in Claude Code's shape. */
export interface Todo {
  readonly content: string;
  readonly status: "pending" | "in_progress" | "completed";
  /** The item as the work in progress says it ("Running the tests"). */
  readonly activeForm?: string;
  /** Older shapes carry these; kept as given. */
  readonly id?: string;
  readonly priority?: "high" | "medium" | "low";
}

/** A command's start inside the OS sandbox: what it may write and reach, or why it was refused. */
export interface SandboxStart {
  readonly writable: readonly string[];
  readonly readOnly: readonly string[];
  /** `none`, or what may be reached through the proxy, as a reader would write it. */
  readonly network: "none" | readonly string[];
  /** The command was not started: the sandbox cannot honour the lists (or could not be started). */
  readonly refused?: string;
  /** How long setting it up and starting it took. */
  readonly ms: number;
}

/** What a tool may tell its run while it runs; the run adds its id and depth and emits it. */
export type ToolEvent =
  | { readonly type: "todos"; readonly todos: readonly Todo[] }
  /** A call's command started in the OS sandbox (traced runs only; `id`: the call). */
  | ({ readonly type: "sandbox"; readonly id: string } & SandboxStart)
  /** A call sent to an MCP server (traced runs only; `id`: the call). */
  | {
      readonly type: "mcp_call";
      readonly id: string;
      readonly server: string;
      readonly transport: "stdio" | "http" | "sse";
      readonly method: "tools/call";
      readonly tool: string;
    }
  /** A running call's latest line of output (a long command's), for a progress display. */
  | { readonly type: "tool_output"; readonly id: string; readonly text: string };

/** How a tool starts a process (`child_process.spawn`'s shape, or a test's stand-in). */
export type { SpawnProcess };

/** The OS sandbox of one call (see `src/sandbox/`). */
export interface CommandSandbox {
  /**
   * `spawn`, wrapped so that the command it starts runs inside the sandbox (bubblewrap around it).
   * The wrapped function throws, starting nothing, when the lists cannot be honoured.
   */
  wrapSpawn(spawn: SpawnProcess): SpawnProcess;
}

export type JsonSchemaObject = Readonly<Record<string, unknown>> & { readonly type: "object" };

/**
 * A tool is a plain object. `execute` never throws or rejects (a wrapper still catches, as the last
 * line of defence). `ownsSchema` marks schemas written here (strict, `additionalProperties: false`),
 * as opposed to schemas of MCP or custom tools, whose keys are sanitised for the API.
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  /**
   * What the model is shown, when it says more than the gate checks (Task shows an enum of the
   * subagents it may start, and says itself, better than an enum error, when a name is not one).
   */
  readonly apiSchema?: JsonSchemaObject;
  readonly permission?: ToolPermissionSpec;
  readonly concurrency: Concurrency;
  /**
   * The concurrency of one call, when it depends on the input (a Bash call that only reads may run
   * beside others). Asked with the input as the model sent it, and the shell parser a command line
   * is read with; overrides `concurrency` for that call.
   */
  readonly concurrencyFor?: (input: unknown, shell: ShellParser) => Concurrency;
  readonly interrupt: InterruptBehavior;
  readonly ownsSchema: boolean;
  /**
   * Set by tools that start a child run (Task, forked skills): their calls take no slot of the
   * global pool while they wait, so a parent never holds a slot its children need.
   */
  readonly spawnsRuns?: boolean;
  /**
   * Set by a tool the Messages API runs on its own side (WebSearch): it is offered as the API's
   * definition and its calls come back inside the model's response, never to `execute`.
   */
  readonly server?: ServerTool;
  /**
   * A custom tool's time limit for one call, in milliseconds (default `DEFAULT_CUSTOM_TOOL_TIMEOUT_MS`):
   * a call still running then is answered without it, its signal aborted. Other tools keep their own.
   */
  readonly timeoutMs?: number;
  /**
   * Why a call cannot be made now (an Edit of a file the session has not read), checked before a
   * user is asked to approve it: a call that would fail is not put to anyone. Undefined: it may.
   */
  readonly precheck?: (
    input: Readonly<Record<string, unknown>>,
    ctx: PrecheckContext,
  ) => Promise<string | undefined>;
  execute(input: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolResult>;
}

/** What a tool's precheck sees of its call. */
export type PrecheckContext = Pick<ToolContext, "cwd" | "readRecord">;

/** A server tool's definition as a request carries it (`{ type: "web_search_20250305", name: "web_search", … }`). */
export type ServerToolDefinition = Readonly<Record<string, unknown>> & {
  readonly type: string;
  readonly name: string;
};

export interface ServerTool {
  /** The name its `server_tool_use` blocks carry (`web_search`). */
  readonly apiName: string;
  /** Its definition under this list; undefined when nothing the list allows can be expressed to the API. */
  definition(list: PermissionList): ServerToolDefinition | undefined;
  /** A result block's content in one line, for the run's events. */
  describe(content: unknown): { readonly text: string; readonly isError: boolean };
}

export type SchemaValidationMode = "off" | "warn" | "enforce";
