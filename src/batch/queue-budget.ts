import type { Redis } from "ioredis";
import { type Budget, rootBudget, type SharedSpend } from "../loop/budget.js";

/**
 * A queue batch's budget (`batch --redis --max-budget-usd`), for all the items of one run of it
 * together (each enqueue is a run; `--resume RUN` continues one), kept in Redis
 * (`agentmd:<queue>:budget:<batch>:<run>`): `cap_usd` set when the batch is queued, `spent_usd`
 * raised atomically (HINCRBYFLOAT) by every worker as each answer's cost is known, and read again
 * before every request of every item on every worker. Requests already in flight when the cap is
 * reached are paid, as Claude Code's `--max-budget-usd` pays them.
 */
export async function setQueueBudget(redis: Redis, key: string, capUsd: number | undefined): Promise<void> {
  // Queued again without one (to collect, to add items), the batch keeps the cap it had.
  if (capUsd !== undefined) await redis.hset(key, "cap_usd", String(capUsd));
}

export interface QueueBudgets {
  /** The batch run's budget, the same object for every job of it this worker runs; none without a cap. */
  budgetFor(batch: string, run?: string): Promise<Budget | undefined>;
}

/** A worker's view of the budgets of the batches it runs (`keyOf`: the budget's Redis key). */
export function queueBudgets(
  redis: Redis,
  keyOf: (batch: string, run?: string) => string,
  onError?: (message: string) => void,
): QueueBudgets {
  const known = new Map<string, { cap: number; budget: Budget }>();
  return {
    budgetFor: async (batch, run) => {
      const key = keyOf(batch, run);
      const cap = Number(await redis.hget(key, "cap_usd"));
      if (!Number.isFinite(cap) || cap <= 0) return undefined;
      const had = known.get(key);
      if (had?.cap === cap) return had.budget;
      const budget = rootBudget(cap, sharedSpend(redis, key, onError));
      known.set(key, { cap, budget });
      return budget;
    },
  };
}

/**
 * What this worker charged and what Redis last said was spent in all: the rest was spent
 * elsewhere. Commands on one connection run in order, so a total read after a charge counts it.
 */
function sharedSpend(redis: Redis, key: string, onError?: (message: string) => void): SharedSpend {
  let mine = 0;
  let elsewhere = 0;
  const heard = (total: string | null, mineThen: number) => {
    const t = Number(total ?? 0);
    if (Number.isFinite(t)) elsewhere = Math.max(elsewhere, t - mineThen);
  };
  const failed = (e: Error) => onError?.(`the batch's budget in Redis: ${e.message}`);
  return {
    charge: (usd) => {
      if (!(usd > 0)) return;
      mine += usd;
      const then = mine;
      redis.hincrbyfloat(key, "spent_usd", usd).then((t) => heard(t, then), failed);
    },
    elsewhereUsd: () => elsewhere,
    refresh: async () => {
      const then = mine;
      await redis.hget(key, "spent_usd").then((t) => heard(t, then), failed);
    },
  };
}
