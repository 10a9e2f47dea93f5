import { setTimeout as wait } from "node:timers/promises";

export interface UntilOptions {
  /** What is awaited, as the failure says it: "the pid file", "the worker to take the job". */
  readonly what: string;
  /** How long to wait before failing; generous, since the machine may be busy. */
  readonly timeoutMs?: number;
  /** How often to look. */
  readonly everyMs?: number;
}

/**
 * Waits for something another process does, which cannot be awaited as an event: a file it
 * writes, a process it ends. Contract: resolves with the predicate's first truthy value; rejects
 * naming `what` once `timeoutMs` has passed, so a wait never gives up in silence and lets the test
 * go on as if it had seen the thing. An error the predicate throws rejects at once.
 */
export async function until<T>(
  predicate: () => T | Promise<T>,
  { what, timeoutMs = 10_000, everyMs = 20 }: UntilOptions,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await wait(everyMs);
  }
}
