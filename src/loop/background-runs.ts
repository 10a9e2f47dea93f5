import { untilAborted } from "../shared/abort.js";

/**
 * A run's background tasks (a subagent with `background: true`): each runs on a signal of its own,
 * aborted when the run's is; when one ends, its notice waits for the run's next request, which
 * carries it as a user text (`<task-notification>`). The run waits for those still running before
 * it ends, or stops them and says so. Contract: no method rejects, and `stopAll` settles every task.
 */
export interface BackgroundRuns {
  /** Starts `task` (never rejecting: it resolves with its notice) and returns its id. */
  start(label: string, task: (signal: AbortSignal) => Promise<string>): string;
  /** How many still run. */
  readonly running: number;
  /** The notices of tasks ended since the last take, oldest first. */
  take(): string[];
  /** Resolves when one more task has ended, or `signal` aborts. */
  next(signal: AbortSignal): Promise<void>;
  /** Stops every task still running and waits for each; resolves with what was stopped, by label and id. */
  stopAll(): Promise<string[]>;
}

export function createBackgroundRuns(runSignal: AbortSignal): BackgroundRuns {
  const live = new Map<string, { label: string; controller: AbortController; done: Promise<void> }>();
  const notices: string[] = [];
  let waiters: (() => void)[] = [];
  let count = 0;
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  return {
    start(label, task) {
      const id = `task-${++count}`;
      const controller = new AbortController();
      const stop = () => controller.abort();
      runSignal.addEventListener("abort", stop, { once: true });
      if (runSignal.aborted) controller.abort();
      const done = task(controller.signal)
        .catch((e: unknown) => `${label} failed: ${e instanceof Error ? e.message : String(e)}`)
        .then((text) => {
          runSignal.removeEventListener("abort", stop);
          live.delete(id);
          notices.push(
            `<task-notification>\nThe background task ${id} (${label}) ended:\n${text}\n</task-notification>`,
          );
          wake();
        });
      live.set(id, { label, controller, done });
      return id;
    },
    get running() {
      return live.size;
    },
    take: () => notices.splice(0),
    next(signal) {
      if (live.size === 0 || signal.aborted) return Promise.resolve();
      const aborted = untilAborted(signal);
      return Promise.race([new Promise<void>((r) => waiters.push(r)), aborted.promise]).finally(() =>
        aborted.dispose(),
      );
    },
    async stopAll() {
      const stopped = [...live].map(([id, t]) => `${t.label} (${id})`);
      for (const t of live.values()) t.controller.abort();
      await Promise.all([...live.values()].map((t) => t.done));
      return stopped;
    },
  };
}
