import { createHash } from "node:crypto";
import type { BatchItem } from "./batch-item.js";

// Dots too: a session id may not hold `..`, and a job id may not hold `:`.
const UNSAFE = /[^A-Za-z0-9_-]+/g;

/**
 * A batch's name as part of a session id: letters, digits, `_` and `-`, at most 40 of them.
 * `reviews.jsonl` is the batch `reviews`.
 */
export function batchIdOf(name: string): string {
  const safe = name
    .replace(/\.jsonl?$/i, "")
    .replace(UNSAFE, "-")
    .replace(/^[-_]+|-+$/g, "")
    .slice(0, 40);
  return safe === "" ? "batch" : safe;
}

/**
 * The session of one item of one batch, the same every time it is computed, so that running the
 * batch again (or another worker) finds the item's transcript: `<batch>-<readable id>-<hash>`.
 *
 * The hash covers what makes the item the same work, not only its name: the batch (and a queue
 * batch's run), the id, the
 * input (prompt or line), the agent, the working folder and the project version it runs with. A
 * file of the same name with another prompt for the same id (next week's `reviews.jsonl`), or the
 * same item after agent.md changed, is new work in a session of its own; it never gets the answer
 * of the item it replaced. The hash also keeps ids apart that read alike once made safe (`a/b`, `a_b`).
 */
export function batchSessionId(
  batchId: string,
  item: BatchItem,
  projectVersion: string,
  run?: string,
): string {
  const identity = [
    // A queue batch's run (a local batch has none): next week's run of the same item is new work.
    ...(run ? [`run:${run}`] : []),
    batchId,
    item.id,
    item.input.kind,
    item.input.text,
    item.agent ?? "",
    item.cwd ?? "",
    projectVersion,
  ];
  const hash = createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 12);
  const readable = item.id.replace(UNSAFE, "_").slice(0, 48);
  return `${batchIdOf(batchId)}-${readable}-${hash}`;
}

/** Why an item was not run again, as a batch says it. */
export const FINISHED_BEFORE = "finished before with the same prompt, agent and project version";
