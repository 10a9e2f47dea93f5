import type { MessageParam } from "../../src/model/messages.js";

type Block = { type: string; id?: string; tool_use_id?: string };

const blocksOf = (m: MessageParam): Block[] => (typeof m.content === "string" ? [] : (m.content as Block[]));
const useIds = (m: MessageParam) => blocksOf(m).flatMap((b) => (b.type === "tool_use" && b.id ? [b.id] : []));
const resultIds = (m: MessageParam) =>
  blocksOf(m).flatMap((b) => (b.type === "tool_result" && b.tool_use_id ? [b.tool_use_id] : []));

/**
 * What makes a conversation one the API would refuse to go on from, one sentence each: it starts
 * with the user, roles alternate, every tool_use of an assistant message is answered (once, and
 * nothing else is) by the user message right after it. [] for a valid conversation.
 */
export function conversationProblems(messages: readonly MessageParam[]): string[] {
  const problems: string[] = [];
  if (messages[0]?.role !== "user") problems.push("the conversation does not start with a user message");
  messages.forEach((m, i) => {
    const before = messages[i - 1];
    if (before && before.role === m.role) problems.push(`messages ${i - 1} and ${i} are both ${m.role}`);
    if (m.role === "assistant") {
      const uses = useIds(m);
      const next = messages[i + 1];
      const answered = next ? resultIds(next) : [];
      if (uses.length > 0 && !next)
        problems.push(`the tool_use of message ${i} (${uses.join(", ")}) are never answered`);
      else if (uses.length > 0 && [...answered].sort().join() !== [...uses].sort().join())
        problems.push(`message ${i + 1} answers ${answered.join(", ") || "nothing"}, not ${uses.join(", ")}`);
    } else {
      const asked = before?.role === "assistant" ? useIds(before) : [];
      for (const id of resultIds(m))
        if (!asked.includes(id))
          problems.push(`message ${i} answers ${id}, which the message before did not ask`);
    }
  });
  return problems;
}
