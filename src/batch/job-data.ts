import { type BatchItem, batchItemOf, itemJson } from "./batch-item.js";

/**
 * What a job on the queue carries: the item as in the batch file, the batch it belongs to, and the
 * version of the project it was made for (a worker with another version refuses it).
 */
export interface JobData {
  readonly batch: string;
  readonly item: BatchItem;
  readonly projectVersion: string;
  /** The W3C trace context it was enqueued in: the run's trace goes on from it. */
  readonly traceparent?: string;
}

export function jobDataFor(
  batch: string,
  item: BatchItem,
  projectVersion: string,
  traceparent?: string,
): Record<string, string> {
  return { ...itemJson(item), batch, projectVersion, ...(traceparent && { traceparent }) };
}

/** A `traceparent` as W3C Trace Context writes it (version 00); anything else is not carried. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A job's data, read back (it came over the network: checked, never trusted), or what is wrong. */
export function jobDataOf(value: unknown): JobData | string {
  if (typeof value !== "object" || value === null) return "the job carries no object";
  const { batch, projectVersion, traceparent, ...rest } = value as Record<string, unknown>;
  if (typeof batch !== "string" || batch === "") return "the job names no batch";
  if (typeof projectVersion !== "string" || projectVersion === "") return "the job names no project version";
  const item = batchItemOf(rest);
  if (typeof item === "string") return `the job's item is not valid: ${item}`;
  // A trace context is a courtesy: one that is not valid is dropped, the job still runs.
  const traced = typeof traceparent === "string" && TRACEPARENT.test(traceparent) ? { traceparent } : {};
  return { batch, item, projectVersion, ...traced };
}
