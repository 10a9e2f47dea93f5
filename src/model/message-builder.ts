import type { ContentBlock, Message } from "./messages.js";

/** The message a stream built, and the tool calls whose input was not complete JSON. */
export interface BuiltMessage {
  readonly message: Message;
  /** By tool_use id: the input as sent (cut), when it did not parse as one JSON object. */
  readonly invalidInputs: ReadonlyMap<string, string>;
}

type Block = Record<string, unknown> & { type: string };
type Json = Record<string, unknown>;

const MAX_SHOWN_INPUT = 500;

/**
 * Builds a message from the Messages API's stream events, as the SDK's own accumulator does, except
 * that a tool call's input is parsed strictly when its block stops: JSON that does not parse, or
 * never closed, makes that one call invalid (never executed), not the whole stream unreadable.
 */
export function createMessageBuilder() {
  let message: Json | undefined;
  let stopped = false;
  const blocks: Block[] = [];
  const json = new Map<number, string>();
  const closed = new Set<number>();
  const invalid = new Map<string, string>();
  const finishInput = (index: number) => {
    const block = blocks[index];
    if (!block || !json.has(index)) return;
    const raw = json.get(index) as string;
    json.delete(index);
    const parsed = parseInput(raw);
    block.input = parsed ?? {};
    if (parsed === undefined)
      invalid.set(String(block.id), raw.length > MAX_SHOWN_INPUT ? `${raw.slice(0, MAX_SHOWN_INPUT)}…` : raw);
  };
  return {
    /** Applies one event (its parsed data). Returns the text it added, if any. */
    apply(event: Json): string | undefined {
      const index = typeof event.index === "number" ? event.index : -1;
      switch (event.type) {
        case "message_start":
          message = { ...(event.message as Json), content: [] };
          return undefined;
        case "content_block_start": {
          const block = { ...(event.content_block as Block) };
          blocks[index] = block;
          if (block.type === "tool_use" || block.type === "server_tool_use" || block.type === "mcp_tool_use")
            json.set(index, "");
          return undefined;
        }
        case "content_block_delta":
          return applyDelta(blocks[index], event.delta as Json | undefined, (s) =>
            json.set(index, (json.get(index) ?? "") + s),
          );
        case "content_block_stop":
          closed.add(index);
          finishInput(index);
          return undefined;
        case "message_delta": {
          if (!message) return undefined;
          const delta = (event.delta ?? {}) as Json;
          message.stop_reason = delta.stop_reason ?? message.stop_reason ?? null;
          message.stop_sequence = delta.stop_sequence ?? message.stop_sequence ?? null;
          message.usage = mergeUsage(message.usage as Json | undefined, event.usage as Json | undefined);
          return undefined;
        }
        case "message_stop":
          stopped = true;
          return undefined;
        default:
          return undefined;
      }
    },
    /** Whether the stream began a message (its output started). */
    get started(): boolean {
      return message !== undefined;
    },
    /** The message, once `message_stop` came; undefined for a stream that ended early. */
    finish(): BuiltMessage | undefined {
      if (!message || !stopped) return undefined;
      blocks.forEach((_, i) => {
        if (!closed.has(i)) finishInput(i);
      });
      const content = blocks.filter(Boolean) as unknown as ContentBlock[];
      return { message: { ...message, content } as unknown as Message, invalidInputs: invalid };
    },
  };
}

function applyDelta(
  block: Block | undefined,
  delta: Json | undefined,
  addJson: (s: string) => void,
): string | undefined {
  if (!block || !delta) return undefined;
  switch (delta.type) {
    case "text_delta": {
      const text = String(delta.text ?? "");
      block.text = String(block.text ?? "") + text;
      return text;
    }
    case "input_json_delta":
      addJson(String(delta.partial_json ?? ""));
      return undefined;
    case "thinking_delta":
      block.thinking = String(block.thinking ?? "") + String(delta.thinking ?? "");
      return undefined;
    case "signature_delta":
      block.signature = String(delta.signature ?? "");
      return undefined;
    case "citations_delta":
      block.citations = [...((block.citations as unknown[] | undefined) ?? []), delta.citation];
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The input as JSON (empty input is `{}`), or undefined when it does not parse. A value of another
 * shape (a string, a list) is kept: the executor's input normalisation says what is wrong with it.
 */
function parseInput(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function mergeUsage(a: Json | undefined, b: Json | undefined): Json {
  const out: Json = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b ?? {})) if (v !== null && v !== undefined) out[k] = v;
  return out;
}
