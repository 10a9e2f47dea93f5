import { readFileSync } from "node:fs";
import path from "node:path";
import type { McpServerConfigInput } from "../../definitions/types.js";
import type { PermissionOptions } from "../../invocation/approvals.js";
import type { RunnerOptions } from "../../invocation/runner-options.js";
import { canonicalToolName } from "../../permissions/tool-matcher.js";
import { createBuiltinTools } from "../../tools/builtin/index.js";
import type { OptionTable } from "./option-table.js";
import { UsageError } from "./usage-error.js";

/**
 * The flags programs that wrap Claude Code pass to `claude -p` (and the Agent SDK passes to the
 * CLI it starts), spelled as Claude Code spells them. Each becomes a caller's option: none widens
 * agent.md's list or lifts a settings deny.
 */
export const WRAPPER_FLAGS = {
  "input-format": {
    type: "string",
    value: "F",
    help: [
      "text (default) or stream-json: the prompts (and the Agent",
      "SDK's control messages) as JSON lines on stdin; needs",
      "--output-format stream-json",
    ],
  },
  "mcp-config": {
    type: "string",
    multiple: true,
    value: "C",
    help: ['MCP servers from a file or JSON ({"mcpServers": …}); repeat', "for more"],
  },
  "strict-mcp-config": { type: "boolean", help: "only the --mcp-config servers: not .mcp.json's" },
  settings: { type: "string", value: "S", help: "settings from a file or JSON, over the project's" },
  "setting-sources": {
    type: "string",
    value: "L",
    help: "user, project, local (comma-separated), as Claude Code",
  },
  "add-dir": {
    type: "string",
    multiple: true,
    value: "DIR",
    help: ["another working folder (permissions.additionalDirectories);", "never widens agent.md's list"],
  },
  tools: {
    type: "string",
    multiple: true,
    value: "T",
    help: [
      "the built-in tools the session has ('default': all, '':",
      "none); the rest are denied at every hop",
    ],
  },
  "session-id": {
    type: "string",
    value: "ID",
    help: ["the new session's id (with --resume or --continue: needs", "--fork-session)"],
  },
  "fork-session": {
    type: "boolean",
    help: ["with --resume or --continue: go on in a new session, the", "old one kept"],
  },
  "include-partial-messages": {
    type: "boolean",
    help: "with --input-format stream-json: the model's text as it streams",
  },
  "replay-user-messages": {
    type: "boolean",
    help: [
      "with --input-format stream-json: each user message said",
      "back with its uuid (what rewindFiles names)",
    ],
  },
  "no-session-persistence": { type: "boolean", help: "write no transcript" },
  "dangerously-skip-permissions": {
    type: "boolean",
    help: ["bypass mode (--permission-mode bypassPermissions), still", "under agent.md's list"],
  },
  "permission-prompt-tool": {
    type: "string",
    value: "stdio",
    help: [
      "with --input-format stream-json: calls that need approval",
      "are asked over the Agent SDK's control protocol",
    ],
  },
} as const satisfies OptionTable;

export type WrapperValues = {
  "input-format"?: string;
  "mcp-config"?: string[];
  "strict-mcp-config"?: boolean;
  settings?: string;
  "setting-sources"?: string;
  "add-dir"?: string[];
  tools?: string[];
  "session-id"?: string;
  "fork-session"?: boolean;
  "include-partial-messages"?: boolean;
  "no-session-persistence"?: boolean;
  "replay-user-messages"?: boolean;
  "dangerously-skip-permissions"?: boolean;
  "permission-prompt-tool"?: string;
  "permission-mode"?: string;
  resume?: string;
  continue?: boolean;
};

/** What the wrapper flags ask of a session, beside the runner's options. */
export interface WrapperOptions {
  /** Runner options: MCP servers, settings (with `--add-dir`), tools taken away. */
  readonly runner: Pick<RunnerOptions, "mcp" | "settings" | "transcript">;
  /** Extra deny rules: the built-in tools `--tools` leaves out. */
  readonly deny: readonly string[];
  readonly bypass: boolean;
  readonly sessionId?: string;
  readonly fork: boolean;
  readonly partialMessages: boolean;
  /** `--replay-user-messages`: each user message said back with its uuid. */
  readonly replayUserMessages: boolean;
  readonly persist: boolean;
  readonly streamInput: boolean;
  /** `--permission-prompt-tool stdio`: calls that need approval are asked over the control protocol. */
  readonly promptOverStdio: boolean;
  /** `--permission-mode dontAsk`: the default mode, with no one asked (what needs approval is refused). */
  readonly dontAsk: boolean;
}

/** The session's permission options with what the wrapper flags add: `--tools`' denies, bypass mode. */
export function withWrapper<P extends Omit<PermissionOptions, "approve">>(
  permissions: P | undefined,
  w: WrapperOptions | undefined,
): P | undefined {
  if (!w || (w.deny.length === 0 && !w.bypass)) return permissions;
  return {
    ...(permissions as P),
    ...(w.deny.length > 0 && { deny: [...(permissions?.deny ?? []), ...w.deny] }),
    ...(w.bypass && { mode: "bypassPermissions" }),
  };
}

const SOURCES = new Set(["user", "project", "local"]);

/** The wrapper flags as options; malformed ones are usage errors naming the flag. */
export function wrapperOptions(v: WrapperValues, cwd: string): WrapperOptions {
  const input = v["input-format"];
  if (input !== undefined && input !== "text" && input !== "stream-json")
    throw new UsageError(`--input-format must be text or stream-json, not '${input}'`);
  const tool = v["permission-prompt-tool"];
  if (tool !== undefined && tool !== "stdio")
    throw new UsageError(
      `--permission-prompt-tool: only 'stdio' (the Agent SDK's canUseTool) is supported, not '${tool}'`,
    );
  if (tool !== undefined && input !== "stream-json")
    throw new UsageError("--permission-prompt-tool stdio needs --input-format stream-json");
  for (const s of splitList(v["setting-sources"] ?? ""))
    if (!SOURCES.has(s)) throw new UsageError(`--setting-sources: '${s}' is not one of user, project, local`);
  if (
    v["dangerously-skip-permissions"] &&
    v["permission-mode"] &&
    v["permission-mode"] !== "bypassPermissions"
  )
    throw new UsageError("--dangerously-skip-permissions and --permission-mode cannot be used together");
  if (v["fork-session"] && !v.resume && !v.continue)
    throw new UsageError("--fork-session needs --resume ID or --continue");
  if (v["session-id"] !== undefined && (v.resume || v.continue) && !v["fork-session"])
    throw new UsageError("--session-id with --resume or --continue needs --fork-session");
  const servers = mcpServers(v["mcp-config"] ?? [], cwd);
  const settings = givenSettings(v.settings, v["add-dir"] ?? [], cwd);
  const persist = !v["no-session-persistence"];
  return {
    runner: {
      ...((servers || v["strict-mcp-config"]) && {
        mcp: { ...(servers && { servers }), ...(v["strict-mcp-config"] && { mcpJson: false }) },
      }),
      ...(settings && { settings }),
      ...(!persist && { transcript: { enabled: false } }),
    },
    deny: v.tools ? toolsLeftOut(v.tools) : [],
    bypass: v["dangerously-skip-permissions"] === true,
    ...(v["session-id"] !== undefined && { sessionId: v["session-id"] }),
    fork: v["fork-session"] === true,
    partialMessages: v["include-partial-messages"] === true,
    replayUserMessages: v["replay-user-messages"] === true,
    persist,
    streamInput: input === "stream-json",
    promptOverStdio: tool === "stdio",
    dontAsk: v["permission-mode"] === "dontAsk",
  };
}

const splitList = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** JSON given inline (starts with `{`) or a file's. */
function jsonOf(flag: string, text: string, cwd: string): Record<string, unknown> {
  let source = text;
  if (!text.trimStart().startsWith("{")) {
    try {
      source = readFileSync(path.resolve(cwd, text), "utf8");
    } catch (e) {
      throw new UsageError(`${flag}: cannot read ${text}: ${(e as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (e) {
    throw new UsageError(`${flag}: not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError(`${flag}: must be a JSON object`);
  return value as Record<string, unknown>;
}

/** `--mcp-config`: each a file or JSON with `mcpServers`, later ones winning a name. */
function mcpServers(
  configs: readonly string[],
  cwd: string,
): Record<string, McpServerConfigInput> | undefined {
  if (configs.length === 0) return undefined;
  const out: Record<string, McpServerConfigInput> = {};
  for (const c of configs) {
    const servers = jsonOf("--mcp-config", c, cwd).mcpServers;
    if (typeof servers !== "object" || servers === null || Array.isArray(servers))
      throw new UsageError('--mcp-config: needs an object "mcpServers" of server definitions');
    Object.assign(out, servers);
  }
  return out;
}

/** `--settings` (a file or JSON), with `--add-dir` folders as `permissions.additionalDirectories`. */
function givenSettings(
  text: string | undefined,
  dirs: readonly string[],
  cwd: string,
): Record<string, unknown> | undefined {
  if (text === undefined && dirs.length === 0) return undefined;
  const settings = text === undefined ? {} : jsonOf("--settings", text, cwd);
  if (dirs.length === 0) return settings;
  const permissions = (settings.permissions ?? {}) as Record<string, unknown>;
  const given = Array.isArray(permissions.additionalDirectories) ? permissions.additionalDirectories : [];
  const added = dirs.flatMap(splitList).map((d) => path.resolve(cwd, d));
  return { ...settings, permissions: { ...permissions, additionalDirectories: [...given, ...added] } };
}

/**
 * `--tools`: the built-in tools a session has. `default` is all of them, an empty value none; the
 * rest are denied by name at every hop (so no subagent gets them back).
 */
function toolsLeftOut(values: readonly string[]): string[] {
  const named = values.flatMap(splitList).map(canonicalToolName);
  if (named.includes("default")) return [];
  const builtin = createBuiltinTools().map((t) => t.name);
  const known = new Set(builtin);
  for (const n of named)
    if (!known.has(n)) throw new UsageError(`--tools: '${n}' is not a built-in tool (${builtin.join(", ")})`);
  return builtin.filter((n) => !named.includes(n));
}
