import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { BatchResult } from "../../src/batch/batch-result.js";
import type { RecordedRequest, Scripted } from "./fake-anthropic.js";

/**
 * The model's side of many runs at once, answered by what each request says rather than by its
 * place in line: an item's prompt is `item <id>: read a.txt`; the model reads a.txt, then answers
 * `answer to <id>`. A request that holds only the prompt is a fresh start; a longer one continues.
 */
export const itemPrompt = (id: string) => `item ${id}: read a.txt`;

export const batchLines = (ids: readonly string[]) =>
  `${ids.map((id) => JSON.stringify({ id, prompt: itemPrompt(id) })).join("\n")}\n`;

export const ids = (n: number, prefix = "r") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** The item a request belongs to, from its first user message. */
export function itemOf(req: RecordedRequest): string | undefined {
  const first = (req.body.messages as MessageParam[])[0]?.content;
  const text =
    typeof first === "string" ? first : (first ?? []).map((b) => ("text" in b ? b.text : "")).join("");
  return /^item (\S+): /.exec(text)?.[1];
}

/** A fresh start: the request holds nothing but the prompt. */
export const isFresh = (req: RecordedRequest) => req.body.messages.length === 1;

/** One answer, for any item, by where its conversation stands; `delayMs` is the model's latency. */
export function answerItem(delayMs = 0, heldUntil?: Promise<unknown>): (req: RecordedRequest) => Scripted {
  return (req) => {
    const id = itemOf(req) ?? "?";
    const last = (req.body.messages as MessageParam[]).at(-1);
    const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
    return answered
      ? { kind: "message", delayMs, heldUntil, content: [{ type: "text", text: `answer to ${id}` }] }
      : {
          kind: "message",
          delayMs,
          heldUntil,
          content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }],
        };
  };
}

/**
 * As many steps as `n` runs could ask for, and more (resumed runs ask again). With `heldUntil`,
 * every answer waits for it: the runs are still going whatever the test does meanwhile.
 */
export const answers = (n: number, delayMs = 0, heldUntil?: Promise<unknown>) =>
  Array.from({ length: n * 3 + 20 }, () => answerItem(delayMs, heldUntil));

/** Counts, per item, the requests that held nothing but its prompt. */
export function freshStarts(requests: readonly RecordedRequest[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of requests) {
    const id = itemOf(r);
    if (id !== undefined && isFresh(r)) out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

/**
 * The items started over from scratch after their run had shown progress: a request with only the
 * prompt, after one that sent the model's tool call back with its result (so the client had that
 * answer). A request cut off before its answer arrived may be sent again; that is not a restart.
 */
export function restartedAfterProgress(requests: readonly RecordedRequest[]): string[] {
  const progressed = new Set<string>();
  const restarted = new Set<string>();
  for (const r of requests) {
    const id = itemOf(r);
    if (id === undefined) continue;
    if (isFresh(r) && progressed.has(id)) restarted.add(id);
    if (!isFresh(r)) progressed.add(id);
  }
  return [...restarted];
}

/** The result lines a batch prints on stdout (one JSON object a line). */
export const resultLines = (stdout: string): BatchResult[] =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchResult);
