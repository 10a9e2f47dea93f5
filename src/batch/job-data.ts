import { type BatchItem, batchItemOf, itemJson } from "./batch-item.js";

/**
 * What a job on the queue carries: the item as in the batch file, the batch it belongs to, the
 * version of the project it was made for (only a worker of that version runs it), and whether it
 * was queued again to retry a failed run (`batch --redis --retry-failed`).
 */
export interface JobData {
  readonly batch: string;
  /** The run of the batch it was queued in (its budget's); absent in jobs queued before runs were kept. */
  readonly run?: string;
  readonly item: BatchItem;
  readonly projectVersion: string;
  readonly retryFailed?: true;
  /** The W3C trace context it was enqueued in: the run's trace goes on from it. */
  readonly traceparent?: string;
}

export function jobDataFor(
  batch: string,
  item: BatchItem,
  projectVersion: string,
  extra: {
    readonly retryFailed?: boolean;
    readonly traceparent?: string | undefined;
    readonly run?: string;
  } = {},
): Record<string, string | boolean> {
  return {
    ...itemJson(item),
    batch,
    ...(extra.run && { run: extra.run }),
    projectVersion,
    ...(extra.retryFailed && { retryFailed: true }),
    ...(extra.traceparent && { traceparent: extra.traceparent }),
  };
}

/** A `traceparent` as W3C Trace Context writes it (version 00); anything else is not carried. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A job's data, read back (it came over the network: checked, never trusted), or what is wrong. */
export function jobDataOf(value: unknown): JobData | string {
  if (typeof value !== "object" || value === null) return "the job carries no object";
  const { batch, run, projectVersion, retryFailed, traceparent, ...rest } = value as Record<string, unknown>;
  if (typeof batch !== "string" || batch === "") return "the job names no batch";
  if (run !== undefined && (typeof run !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(run)))
    return "the job's run is not a run id";
  if (typeof projectVersion !== "string" || projectVersion === "") return "the job names no project version";
  if (retryFailed !== undefined && retryFailed !== true) return "the job's retryFailed is not true";
  const item = batchItemOf(rest);
  if (typeof item === "string") return `the job's item is not valid: ${item}`;
  // A trace context is a courtesy: one that is not valid is dropped, the job still runs.
  const traced = typeof traceparent === "string" && TRACEPARENT.test(traceparent) ? { traceparent } : {};
  return {
    batch,
    ...(typeof run === "string" && { run }),
    item,
    projectVersion,
    ...(retryFailed === true && { retryFailed }),
    ...traced,
  };
}
