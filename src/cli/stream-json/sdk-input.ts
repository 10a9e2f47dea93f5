import type { Definition } from "../../definitions/types.js";
import type { Content } from "../../invocation/run-types.js";
import type { Runner } from "../../invocation/runner.js";
import { unknownSlash } from "../terminal/unknown-slash.js";
import type { SdkUserMessage } from "./sdk-channel.js";

/** A command or skill as the `initialize` answer lists it (`supportedCommands()` in the SDK). */
export interface SdkCommand {
  readonly name: string;
  readonly description: string;
  readonly argumentHint: string;
}

/** The names a user may type after `/`, each with its definition's description and argument hint. */
export function commandsOf(runner: Runner): SdkCommand[] {
  const invocable = runner.definitions.filter(
    (d): d is Extract<Definition, { surface: "command" | "skill" }> =>
      d.surface === "command" || d.surface === "skill",
  );
  return runner.slashNames().map((name) => {
    // A plugin's skill is also listed by its bare name (`review` for `tools:review`).
    const d = invocable.find((x) => x.name === name) ?? invocable.find((x) => x.name.endsWith(`:${name}`));
    return { name, description: d?.description ?? "", argumentHint: d?.argumentHint ?? "" };
  });
}

/** `/server:prompt (MCP) args`, as claude-agent-acp writes an MCP prompt: agentmd's `/mcp__server__prompt args`. */
const ADAPTER_MCP_PROMPT = /^\/([^:\s]+):(\S+) \(MCP\)(\s[\s\S]*)?$/;

/**
 * What a user message runs: `/name args` (its text alone, as the REPL takes a typed line) is the
 * command or skill, a prompt otherwise. A `/name` the project does not define is an error, said as
 * that turn's result: nothing is sent to the model.
 */
export function turnInput(content: Content, runner: Runner): { input: Content } | { error: string } {
  const line = slashLine(content);
  if (line === undefined) return { input: content };
  const unknown = unknownSlash(runner, line);
  return unknown ? { error: unknown } : { input: line };
}

function slashLine(content: Content): string | undefined {
  const text =
    typeof content === "string"
      ? content
      : content.every((b) => b.type === "text")
        ? content.map((b) => (b as { text: string }).text).join("")
        : undefined;
  if (text === undefined || !text.trimStart().startsWith("/")) return undefined;
  const mcp = ADAPTER_MCP_PROMPT.exec(text.trim());
  return mcp ? `/mcp__${mcp[1]}__${mcp[2]}${mcp[3] ?? ""}` : text.trim();
}

/**
 * `--replay-user-messages`: the user message taken, echoed as Claude Code echoes it, with the
 * `uuid` the program gave it (which is how claude-agent-acp knows its prompt has begun).
 */
export function replayOf(m: SdkUserMessage, uuid: string, sessionId: string): object {
  return {
    type: "user",
    message: m.message,
    session_id: sessionId,
    parent_tool_use_id: m.parent_tool_use_id ?? null,
    uuid,
    timestamp: new Date().toISOString(),
    isReplay: true,
  };
}
