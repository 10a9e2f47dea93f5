import type { Worker } from "bullmq";

/**
 * The loss of a job's lock as an abort of its run. BullMQ renews the lock of each running job
 * (about every quarter of its duration) and says so (`locksRenewed`); a renewal Redis refused says
 * so too (`lockRenewalFailed`), but one that failed with an error (Redis full, not answering) only
 * shows as an error. A job whose lock has not been renewed for its whole duration has lost it:
 * another worker may run it now. Its run is stopped before its next step (its signal aborts), so
 * that one run of it goes on (its transcript says where), not two.
 */
export function watchLocks(worker: Worker, lockDurationMs: number, onLost: (jobId: string) => void) {
  const renewed = new Map<string, number>();
  const lost = (id: string) => {
    if (!renewed.delete(id)) return;
    worker.cancelJob(id, "the job's lock was lost");
    onLost(id);
  };
  worker.on("locksRenewed", ({ jobIds }) => {
    const now = Date.now();
    for (const id of jobIds) if (renewed.has(id)) renewed.set(id, now);
  });
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const id of jobIds) lost(id);
  });
  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const [id, at] of renewed) if (now - at >= lockDurationMs) lost(id);
    },
    Math.max(100, Math.round(lockDurationMs / 8)),
  );
  timer.unref();
  return {
    /** A job this worker started running now (its lock was just taken). */
    track: (jobId: string) => renewed.set(jobId, Date.now()),
    untrack: (jobId: string) => renewed.delete(jobId),
    stop: () => clearInterval(timer),
  };
}
