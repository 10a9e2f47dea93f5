/**
 * A job a worker did not run because it was made for another project version: the worker put it
 * back on the queue (delayed) for a worker of that version, as in a rolling deploy where old and
 * new workers take jobs from one queue. Stored as the job's progress, so `batch --wait` can say
 * what the job waits for.
 */
export interface Refusal {
  readonly refusedBy: string;
  readonly jobVersion: string;
  readonly workerVersion: string;
}

/** A job's progress read back as a refusal, or undefined (it is not one). */
export function refusalOf(value: unknown): Refusal | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Record<string, unknown>;
  return typeof r.refusedBy === "string" &&
    typeof r.jobVersion === "string" &&
    typeof r.workerVersion === "string"
    ? { refusedBy: r.refusedBy, jobVersion: r.jobVersion, workerVersion: r.workerVersion }
    : undefined;
}

/** How long a refused job waits before a worker looks at it again (new workers may be up by then). */
export const REFUSED_DELAY_MS = 2000;

/** What `batch --wait` and the worker say of a refusal. */
export const refusalText = (r: Refusal): string =>
  `jobs made for project version ${r.jobVersion} were put back by ${r.refusedBy}, whose project is ${r.workerVersion}; they wait for a worker of version ${r.jobVersion}`;
