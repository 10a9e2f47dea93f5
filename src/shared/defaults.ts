/**
 * The defaults and limits several floors share, written once below all of them: the runner,
 * the loop, the MCP hub and the tools use them, and the key reference of `definitions/` states
 * them, so the documentation can never name a value the code does not use. Plain values only.
 */

/**
 * Model aliases: each maps to the newest id of its family that the SDK lists as not deprecated. A
 * full model id is used as written.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
};

/** The model of a run that names none (and of `inherit` with nobody to inherit from). */
export const DEFAULT_MODEL = MODEL_ALIASES.sonnet as string;

/** Tokens a model takes in one request: every model agentmd names has this standard window. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** Model requests a run makes before it stops with `max_iterations`. */
export const DEFAULT_MAX_ITERATIONS = 50;

/** `max_tokens` of one model request. */
export const DEFAULT_MAX_TOKENS = 8192;

/** Tool calls at once across every run of a process. */
export const DEFAULT_MAX_CONCURRENCY = 4;

/** How deep subagents may start subagents. */
export const DEFAULT_MAX_DEPTH = 3;

/** Seconds a command hook may run before it is stopped. */
export const HOOK_TIMEOUT_S = 60;

/** How long one MCP request may take. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** How long one call of a custom tool (`tools/*`) may take unless it sets `timeoutMs`. */
export const DEFAULT_CUSTOM_TOOL_TIMEOUT_MS = 600_000;

/** `toolSearch: auto` defers tool definitions past this share of the context window, in percent. */
export const DEFAULT_TOOL_SEARCH_PERCENT = 10;

/** The largest file a session's checkpoints keep (a larger one is listed as not kept). */
export const CHECKPOINT_FILE_MAX_BYTES = 10 * 1024 * 1024;

/** What one session's checkpoints may hold in all: files past it are listed as not kept. */
export const CHECKPOINT_SESSION_MAX_BYTES = 100 * 1024 * 1024;
