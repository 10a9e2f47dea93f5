/**
 * The one abort plumbing every waiting step shares. Contract: each settles exactly once and leaves
 * no listener behind on the signal once it has settled.
 */

/** Resolves after `ms`, or as soon as `signal` aborts (then without waiting the rest). Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Resolves when `signal` aborts (at once if it already has), with a `dispose` to drop the listener
 * when the caller no longer waits. Never rejects.
 */
export function untilAborted(signal: AbortSignal): { readonly promise: Promise<void>; dispose(): void } {
  if (signal.aborted) return { promise: Promise.resolve(), dispose: () => {} };
  let dispose = (): void => {};
  const promise = new Promise<void>((resolve) => {
    const done = (): void => resolve();
    signal.addEventListener("abort", done, { once: true });
    dispose = () => signal.removeEventListener("abort", done);
  });
  return { promise, dispose };
}

/**
 * `work`, or `onAbort()` if `signal` aborts first and `work` has not settled `graceMs` later: a step
 * that ignores its signal is abandoned rather than left to hold the run. Never waits longer than
 * `work` or abort + grace.
 */
export async function settleOrAbandon<T>(
  work: Promise<T>,
  signal: AbortSignal,
  graceMs: number,
  onAbort: () => T,
): Promise<T> {
  const aborted = untilAborted(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const abandoned = aborted.promise.then(
    () =>
      new Promise<{ readonly abandoned: true }>((resolve) => {
        timer = setTimeout(() => resolve({ abandoned: true }), graceMs);
      }),
  );
  try {
    const first = await Promise.race([work.then((value) => ({ value })), abandoned]);
    return "value" in first ? first.value : onAbort();
  } finally {
    aborted.dispose();
    if (timer) clearTimeout(timer);
  }
}
