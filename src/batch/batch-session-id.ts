import { createHash } from "node:crypto";

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
 * batch again (or another worker) finds the item's transcript: `<batch>-<readable id>-<hash>`. The
 * hash keeps ids apart that read alike once made safe (`a/b` and `a_b`).
 */
export function batchSessionId(batchId: string, itemId: string): string {
  const hash = createHash("sha256").update(`${batchId}\0${itemId}`).digest("hex").slice(0, 12);
  const readable = itemId.replace(UNSAFE, "_").slice(0, 48);
  return `${batchIdOf(batchId)}-${readable}-${hash}`;
}
