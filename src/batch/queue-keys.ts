/** The default name of the queue (and of the folder of keys beside it). */
export const DEFAULT_QUEUE = "agentmd";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const RUN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

/** A new run of a batch on a queue: when it was queued, and a few random letters. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 13);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Throws unless `run` can name a run of a batch (`--resume RUN`): letters, digits, `_`, `-`. */
export function checkRunId(run: string): string {
  if (!RUN.test(run)) throw new Error(`'${run}' cannot name a batch's run: use letters, digits, _ -`);
  return run;
}

/** Throws unless `name` can name a queue: letters, digits, `_`, `.`, `-` (BullMQ refuses `:`). */
export function checkQueueName(name: string): string {
  if (!NAME.test(name)) throw new Error(`'${name}' cannot name a queue: use letters, digits, _ . -`);
  return name;
}

/**
 * Where a queue's runs keep what outlives a worker, beside BullMQ's own keys (`bull:<queue>:…`).
 * A batch's results and totals are those of one run of it (`<batch>:<run>`: each enqueue is a run
 * of its own, `--resume RUN` continues one), as its budget is: next week's batch of the same name
 * starts fresh.
 * - `agentmd:<queue>:results:<batch>:<run>`: a hash, an item's session id → its result as JSON,
 *   written once (the session id covers the run, the item's prompt, agent, cwd and project
 *   version: a changed item has a result of its own);
 * - `agentmd:<queue>:totals:<batch>:<run>`: a hash of counters (runs, failed, tokens, cost_usd);
 * - `agentmd:<queue>:finished:<batch>:<run>`: a list of session ids, one pushed as each result is
 *   stored: a waiting `batch --wait` reads on from where it was, rather than asking after every job;
 * - `agentmd:<queue>:wait:<batch>:<wait>`: a hash of the sessions one `batch --wait` still waits
 *   for (session id → its item), emptied as results are handed over, and a set beside it
 *   (`…:refused`) of those put back for a worker of their version;
 * - `agentmd:<queue>:queued:<batch>:<run>`: set when the batch is enqueued; gone, it tells a waiting
 *   `batch --wait` that Redis lost its data (restarted empty);
 * - `agentmd:<queue>:budget:<batch>:<run>`: a hash, `cap_usd` (`--max-budget-usd`, for all the
 *   items of one run of the batch together: each enqueue is a run of its own, `--resume RUN`
 *   continues one) and `spent_usd` (what every worker's runs of it spent, added as answers come);
 * - `agentmd:<queue>:transcript:<session>`: a list, one event as JSON an entry, in order, and
 *   beside it `…:writer` (the run writing it and its last event's number: no write after a lost one);
 * - `agentmd:<queue>:rate:…`: the rate limit every worker of the queue shares (its windows' counts
 *   and the hold after a 429).
 */
export function queueKeys(queue: string) {
  const base = `agentmd:${queue}`;
  return {
    /** A run's keys (`run` absent: a job queued before runs were kept, or a view's `<batch>:<run>` name). */
    batch: (batch: string, run?: string): BatchKeys => {
      const of = run ? `${batch}:${run}` : batch;
      return {
        results: `${base}:results:${of}`,
        totals: `${base}:totals:${of}`,
        queued: `${base}:queued:${of}`,
        finished: `${base}:finished:${of}`,
      };
    },
    wait: (batch: string, wait: string): WaitKeys => ({
      pending: `${base}:wait:${batch}:${wait}`,
      refused: `${base}:wait:${batch}:${wait}:refused`,
    }),
    budget: (batch: string, run?: string) => `${base}:budget:${batch}${run ? `:${run}` : ""}`,
    rate: `${base}:rate`,
    transcript: (sessionId: string) => `${base}:transcript:${sessionId}`,
  };
}

export interface BatchKeys {
  readonly results: string;
  readonly totals: string;
  readonly queued: string;
  readonly finished: string;
}

export interface WaitKeys {
  readonly pending: string;
  readonly refused: string;
}
