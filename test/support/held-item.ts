import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { answerItem, itemOf } from "./batch-script.js";
import type { RecordedRequest, Scripted } from "./fake-anthropic.js";

/**
 * The model's side of a batch whose item `held` cannot finish until the test lets it: each of its
 * requests is answered with one more Read, until `release()` is called (or, so that a test that
 * never releases it fails rather than hangs, `limit` requests later: `releasedBy` says which). The
 * other items are answered as `answerItem` does. For tests that results come out as they finish:
 * the first result line must appear while the held item still runs.
 */
export function heldItem(held: string, { delayMs = 10, limit = 300 } = {}) {
  const answer = answerItem();
  let releasedBy: "test" | "limit" | undefined;
  let heldRequests = 0;
  const step = (req: RecordedRequest): Scripted => {
    if (itemOf(req) !== held) return answer(req);
    heldRequests++;
    if (releasedBy === undefined && heldRequests >= limit) releasedBy = "limit";
    if (releasedBy === undefined)
      return {
        kind: "message",
        delayMs,
        content: [{ type: "tool_use", name: "Read", input: { file_path: "a.txt" } }],
      };
    const last = (req.body.messages as MessageParam[]).at(-1);
    const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
    return answered
      ? { kind: "message", content: [{ type: "text", text: `answer to ${held}` }] }
      : answer(req);
  };
  return {
    step,
    /** As many steps as `n` other items and the held one could ask for. */
    steps: (n: number) => Array.from({ length: n * 3 + limit + 20 }, () => step),
    release: () => {
      releasedBy ??= "test";
    },
    get releasedBy() {
      return releasedBy;
    },
  };
}
