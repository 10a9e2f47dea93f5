import type { ContentBlockParam, MessageParam } from "../model/messages.js";
import type { Model } from "../model/model.js";
import { addUsage, type Usage, ZERO_USAGE } from "../model/models.js";

/**
 * A conversation made short enough to go on: the model summarises it (what was asked, decided and
 * done, files and commands that matter, what remains), and the summary stands for it. The
 * conversation is given as text, so no tool definitions are needed and any state of it can be
 * summarised (a tool call without its result included).
 */
export type Summary =
  | { readonly ok: true; readonly summary: string; readonly usage: Usage }
  | { readonly ok: false; readonly message: string };

const SYSTEM =
  "You summarise a conversation between a user and an AI agent that uses tools, so that the agent can continue the work from the summary alone.";

const ASK = `Summarise the conversation above for the agent that will continue it. Keep, in this order:
1. What the user asked for, in their words where it matters, and every instruction or preference they gave.
2. What was found and decided, with the exact file paths, names, commands and values that matter.
3. What was done (files changed, commands run and their outcome).
4. What remains to be done, and the very next step.
Write it as plain text with short headings. Do not invent anything that is not in the conversation.`;

/** Characters of one tool result kept in what is summarised. */
const RESULT_CHARS = 4_000;

/** Summarises `messages` with `model`. Contract: never rejects. */
export async function summarise(
  model: Model,
  request: { readonly model: string; readonly maxTokens: number; readonly instructions?: string },
  messages: readonly MessageParam[],
  signal: AbortSignal,
): Promise<Summary> {
  if (messages.length === 0) return { ok: false, message: "the conversation is empty" };
  const outcome = await model.turn(
    {
      model: request.model,
      max_tokens: Math.min(request.maxTokens, 8_192),
      system: SYSTEM,
      messages: [
        {
          role: "user",
          content: `<conversation>\n${asText(messages)}\n</conversation>\n\n${ASK}${request.instructions ? `\n\nAlso: ${request.instructions}` : ""}`,
        },
      ],
    },
    { signal, onText: () => {}, onRetry: () => {} },
  );
  if (outcome.kind === "aborted") return { ok: false, message: "stopped" };
  if (outcome.kind === "error") return { ok: false, message: outcome.message };
  const summary = outcome.message.content
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("")
    .trim();
  if (summary === "") return { ok: false, message: "the model answered without a summary" };
  return { ok: true, summary, usage: addUsage(ZERO_USAGE, outcome.message.usage) };
}

/** The message a summary becomes: it stands for the conversation it replaces. */
export function summaryMessage(summary: string): MessageParam {
  return {
    role: "user",
    content: `This conversation continues an earlier one, which was summarised to save room. The summary stands for everything before this point:\n\n${summary}`,
  };
}

/** A conversation as plain text, one labelled paragraph per block. */
export function asText(messages: readonly MessageParam[]): string {
  const blocks = (m: MessageParam): ContentBlockParam[] =>
    typeof m.content === "string" ? [{ type: "text", text: m.content }] : [...m.content];
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of blocks(m)) {
      if (b.type === "text") parts.push(`${m.role === "user" ? "User" : "Agent"}: ${b.text}`);
      else if (b.type === "tool_use") parts.push(`Agent called ${b.name}: ${JSON.stringify(b.input)}`);
      else if (b.type === "tool_result") {
        const text =
          typeof b.content === "string"
            ? b.content
            : (b.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
        const cut = text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}\n[… cut]` : text;
        parts.push(`Result${b.is_error ? " (error)" : ""}: ${cut}`);
      } else parts.push(`[${b.type}]`);
    }
  }
  return parts.join("\n\n");
}
