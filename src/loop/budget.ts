/**
 * What runs may spend, as a ceiling like the lists: every run has a budget, its caller's or one
 * below it (its own cap, within what its caller has left), and what a run spends is charged to its
 * budget and every budget above it. A budget with no cap anywhere above it never stops a run.
 */
export interface Budget {
  /** US dollars this budget allows; Infinity: no cap of its own (its parent's still binds). */
  readonly capUsd: number;
  /** What the runs under it have spent, in US dollars. */
  spentUsd: number;
  readonly parent?: Budget;
  /**
   * A budget kept outside the process (a batch's, on its queue): called with each charge, and
   * asked what was spent elsewhere before each request.
   */
  readonly shared?: SharedSpend;
}

export interface SharedSpend {
  charge(usd: number): void;
  /** What other processes spent, as last heard (sync: the check comes before every request). */
  elsewhereUsd(): number;
  /** Hears again what was spent elsewhere; awaited before every request. Never rejects. */
  refresh?(): Promise<void>;
}

/** The budget of a session or batch: its cap (none: Infinity). */
export function rootBudget(capUsd?: number, shared?: SharedSpend): Budget {
  return { capUsd: capUsd ?? Number.POSITIVE_INFINITY, spentUsd: 0, ...(shared && { shared }) };
}

/** A child's budget: its own cap below its caller's; without one, the caller's itself. */
export function budgetBelow(parent: Budget, capUsd?: number): Budget {
  return capUsd === undefined ? parent : { capUsd, spentUsd: 0, parent };
}

export function charge(budget: Budget, usd: number): void {
  for (let b: Budget | undefined = budget; b; b = b.parent) {
    b.spentUsd += usd;
    b.shared?.charge(usd);
  }
}

/** The budget that has been reached, nearest first; undefined while every one has money left. */
export function reached(budget: Budget): Budget | undefined {
  for (let b: Budget | undefined = budget; b; b = b.parent)
    if (b.spentUsd + (b.shared?.elsewhereUsd() ?? 0) >= b.capUsd) return b;
  return undefined;
}

/** Every shared budget above heard again, before a request checks `reached`. */
export async function refreshShared(budget: Budget): Promise<void> {
  const waits: Promise<void>[] = [];
  for (let b: Budget | undefined = budget; b; b = b.parent)
    if (b.shared?.refresh) waits.push(b.shared.refresh());
  await Promise.all(waits);
}

/** Whether any budget above binds: then a model without a known price cannot be run. */
export function isCapped(budget: Budget): boolean {
  for (let b: Budget | undefined = budget; b; b = b.parent) if (Number.isFinite(b.capUsd)) return true;
  return false;
}

/** Claude Code's words for a reached budget: `Reached maximum budget ($0.9)`. */
export const reachedMessage = (b: Budget) => `Reached maximum budget ($${b.capUsd})`;
