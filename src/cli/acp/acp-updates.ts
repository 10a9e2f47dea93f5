import path from "node:path";
import type {
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { RunEvent, RunResult } from "../../loop/events.js";
import type { ContentBlockParam } from "../../model/messages.js";
import { DEFAULT_CONTEXT_WINDOW } from "../../shared/defaults.js";

/** How a tool is shown in the editor: what it does to the project. */
const KINDS: Readonly<Record<string, ToolKind>> = {
  Read: "read",
  Write: "edit",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Glob: "search",
  Grep: "search",
  LS: "search",
  ToolSearch: "search",
  Bash: "execute",
  BashOutput: "execute",
  KillShell: "execute",
  WebFetch: "fetch",
  WebSearch: "fetch",
  TodoWrite: "think",
  Task: "think",
  Skill: "think",
  ExitPlanMode: "switch_mode",
};

type Input = Readonly<Record<string, unknown>>;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The file a call names, absolute (the editor opens it). */
function fileOf(input: Input, cwd: string): string | undefined {
  const p = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
  return p === undefined ? undefined : path.resolve(cwd, p);
}

/** The one line the editor shows for a call. */
export function toolTitle(name: string, input: Input, cwd: string): string {
  const file = fileOf(input, cwd);
  const shown = file ? path.relative(cwd, file) || "." : undefined;
  switch (name) {
    case "Bash":
      return `\`${(str(input.command) ?? "").replace(/\s+/g, " ").slice(0, 200)}\``;
    case "Grep":
    case "Glob":
      return `${name} ${str(input.pattern) ?? ""}${shown ? ` in ${shown}` : ""}`;
    case "WebFetch":
      return `Fetch ${str(input.url) ?? ""}`;
    case "WebSearch":
      return `Search the web: ${str(input.query) ?? ""}`;
    case "Task":
      return `Task ${str(input.subagent_type) ?? ""}: ${str(input.description) ?? ""}`.trim();
    case "Skill":
      return `Skill ${str(input.skill) ?? str(input.command) ?? ""}`.trim();
    default:
      return shown ? `${name} ${shown}` : name;
  }
}

/** What a call is about to change, as the editor's diffs: Write's whole file, Edit's and MultiEdit's pieces. */
export function toolDiffs(name: string, input: Input, cwd: string): ToolCallContent[] {
  const file = fileOf(input, cwd);
  if (!file) return [];
  if (name === "Write" && typeof input.content === "string")
    return [{ type: "diff", path: file, oldText: null, newText: input.content }];
  if (name === "Edit" && typeof input.new_string === "string")
    return [{ type: "diff", path: file, oldText: str(input.old_string) ?? null, newText: input.new_string }];
  if (name === "MultiEdit" && Array.isArray(input.edits))
    return input.edits.flatMap((e: unknown): ToolCallContent[] => {
      const edit = (typeof e === "object" && e !== null ? e : {}) as Input;
      return typeof edit.new_string === "string"
        ? [{ type: "diff", path: file, oldText: str(edit.old_string) ?? null, newText: edit.new_string }]
        : [];
    });
  return [];
}

function locationsOf(input: Input, cwd: string): ToolCallLocation[] {
  const file = fileOf(input, cwd);
  if (!file) return [];
  const line = typeof input.offset === "number" ? input.offset : undefined;
  return [{ path: file, ...(line !== undefined && { line }) }];
}

const asInput = (v: unknown): Input => (typeof v === "object" && v !== null ? (v as Input) : {});

/** The `tool_call` that announces a call. */
export function toolCallOf(id: string, name: string, rawInput: unknown, cwd: string): SessionUpdate {
  const input = asInput(rawInput);
  return {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: toolTitle(name, input, cwd),
    kind: KINDS[name] ?? "other",
    status: "pending",
    content: toolDiffs(name, input, cwd),
    locations: locationsOf(input, cwd),
    rawInput,
  };
}

/** A call's end: its status, and its result (a command's output as the terminal showed it). */
export function toolEndOf(
  e: Extract<RunEvent, { type: "tool_end" }>,
  terminalId: string | undefined,
): SessionUpdate {
  const failed = e.isError || e.decision !== "allowed";
  const text = e.name === "Bash" && !terminalId ? `\`\`\`\n${e.content}\n\`\`\`` : e.content;
  const content: ToolCallContent[] = terminalId
    ? [{ type: "terminal", terminalId }]
    : [{ type: "content", content: { type: "text", text } }];
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: e.id,
    status: failed ? "failed" : "completed",
    content,
    rawOutput: { decision: e.decision, content: e.content },
  };
}

export interface UpdateMapper {
  /** The updates an event of the running turn makes. */
  live(event: RunEvent): SessionUpdate[];
  /** The updates a saved event makes when a session is loaded (whole messages, no deltas). */
  replay(event: RunEvent): SessionUpdate[];
}

/**
 * A run's events as ACP session updates: the main agent's text as it streams, its thinking, every
 * hop's tool calls (a subagent's too: the lists bind there as well), the plan, the usage.
 */
export function updateMapper(cwd: string, terminals: ReadonlyMap<string, string>): UpdateMapper {
  let cost = 0;
  const common = (e: RunEvent): SessionUpdate[] => {
    switch (e.type) {
      case "tool_start":
        return [toolCallOf(e.id, e.name, e.input, cwd)];
      case "tool_end":
        return [toolEndOf(e, terminals.get(e.id))];
      case "todos":
        return [
          {
            sessionUpdate: "plan",
            entries: e.todos.map((t) => ({
              content: t.content,
              priority: t.priority ?? "medium",
              status: t.status,
            })),
          },
        ];
      default:
        return [];
    }
  };
  return {
    live(e) {
      if (e.type === "message_delta" && e.depth === 0)
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.text } }];
      if (e.type === "message_end" && e.depth === 0) return thoughts(e.content);
      if (e.type === "usage") {
        cost += e.costUsd;
        const u = e.usage;
        return [
          {
            sessionUpdate: "usage_update",
            used:
              u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + u.output_tokens,
            size: DEFAULT_CONTEXT_WINDOW,
            ...(!e.costUnknown && { cost: { amount: cost, currency: "USD" } }),
          },
        ];
      }
      return common(e);
    },
    replay(e) {
      if (e.type === "user_message" && e.depth === 0)
        return textsOf(e.content).map((text) => ({
          sessionUpdate: "user_message_chunk",
          content: { type: "text", text },
        }));
      if (e.type === "message_end" && e.depth === 0)
        return [
          ...thoughts(e.content),
          ...textsOf(e.content).map(
            (text): SessionUpdate => ({
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text },
            }),
          ),
        ];
      return e.depth === 0 ? common(e) : [];
    },
  };
}

function thoughts(content: readonly ContentBlockParam[]): SessionUpdate[] {
  return content.flatMap((b): SessionUpdate[] =>
    b.type === "thinking" && b.thinking
      ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: b.thinking } }]
      : [],
  );
}

function textsOf(content: string | readonly ContentBlockParam[]): string[] {
  if (typeof content === "string") return content ? [content] : [];
  return content.flatMap((b) => (b.type === "text" && b.text ? [b.text] : []));
}

/** Why a turn ended, as ACP says it; undefined for a run that failed (the prompt's answer is an error). */
export function stopReasonOf(r: RunResult): StopReason | undefined {
  switch (r.outcome) {
    case "done":
      return "end_turn";
    case "aborted":
      return "cancelled";
    case "declined":
      return "refusal";
    case "limit":
      // A text cut off by max_tokens ends the run `limit` without a kind; the other limits name theirs.
      return r.limit === undefined || r.limit === "max_tokens" ? "max_tokens" : "max_turn_requests";
    default:
      return undefined;
  }
}
