import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ContentSpec, FakeAnthropic, Scripted } from "./fake-anthropic.js";

type MessageStep = Extract<Scripted, { kind: "message" }>;

/** Scripting the fake model: one step a response. */

/** A response of text alone. */
export const text = (t: string): MessageStep => ({ kind: "message", content: [{ type: "text", text: t }] });

/** One tool_use block. */
export const use = (name: string, input: unknown, id?: string): ContentSpec => ({
  type: "tool_use",
  name,
  input,
  ...(id && { id }),
});

/** A response of one tool call. */
export const call = (name: string, input: unknown, id?: string): MessageStep => ({
  kind: "message",
  content: [use(name, input, id)],
});

/** A response of several tool calls (one batch). */
export const calls = (...uses: ContentSpec[]): MessageStep => ({ kind: "message", content: uses });

/** What request `i` told the model. */

/** The names of the tools offered in request `i`, sorted. */
export const toolsOf = (fake: FakeAnthropic, i: number): string[] =>
  (fake.requests[i]?.body.tools ?? []).map((t) => (t as { name: string }).name).sort();

/** The tool_result blocks sent in request `i` (its last message). */
export function resultsSent(fake: FakeAnthropic, i: number): ToolResultBlockParam[] {
  const messages = fake.requests[i]?.body.messages as MessageParam[] | undefined;
  const last = messages?.[messages.length - 1];
  return (Array.isArray(last?.content) ? last.content : []) as ToolResultBlockParam[];
}

/** A tool_result's text, whatever its form. */
export const resultText = (r: ToolResultBlockParam | undefined): string =>
  typeof r?.content === "string"
    ? r.content
    : (r?.content ?? []).map((b) => ("text" in b ? b.text : "")).join("");

/** The first user message of request `i`, as text. */
export function promptOf(fake: FakeAnthropic, i: number): string {
  const content = (fake.requests[i]?.body.messages[0] as MessageParam | undefined)?.content;
  return typeof content === "string"
    ? content
    : (content ?? []).map((b) => ("text" in b ? b.text : "")).join("");
}
