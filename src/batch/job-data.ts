import { type BatchItem, batchItemOf, itemJson } from "./batch-item.js";

/**
 * What a job on the queue carries: the item as in the batch file, the batch it belongs to, the
 * version of the project it was made for (only a worker of that version runs it), and whether it
 * was queued again to retry a failed run (`batch --redis --retry-failed`).
 */
export interface JobData {
  readonly batch: string;
  readonly item: BatchItem;
  readonly projectVersion: string;
  readonly retryFailed?: true;
}

export function jobDataFor(
  batch: string,
  item: BatchItem,
  projectVersion: string,
  retryFailed = false,
): Record<string, string | boolean> {
  return { ...itemJson(item), batch, projectVersion, ...(retryFailed && { retryFailed: true }) };
}

/** A job's data, read back (it came over the network: checked, never trusted), or what is wrong. */
export function jobDataOf(value: unknown): JobData | string {
  if (typeof value !== "object" || value === null) return "the job carries no object";
  const { batch, projectVersion, retryFailed, ...rest } = value as Record<string, unknown>;
  if (typeof batch !== "string" || batch === "") return "the job names no batch";
  if (typeof projectVersion !== "string" || projectVersion === "") return "the job names no project version";
  if (retryFailed !== undefined && retryFailed !== true) return "the job's retryFailed is not true";
  const item = batchItemOf(rest);
  if (typeof item === "string") return `the job's item is not valid: ${item}`;
  return { batch, item, projectVersion, ...(retryFailed === true && { retryFailed }) };
}
