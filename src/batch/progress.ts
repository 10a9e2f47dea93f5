import type { BatchResult } from "./batch-result.js";

/** Where a batch stands, for its progress bar and its last line. */
export interface Progress {
  readonly total: number;
  /** Finished with `done` (now or before). */
  readonly done: number;
  /** Finished with any other outcome. */
  readonly failed: number;
  readonly running: number;
  /** Finished in earlier invocations and not run again. */
  readonly skipped: number;
  readonly tokens: number;
  readonly costUsd: number;
  /** When this invocation started, and how many runs it has finished: the pace the ETA uses. */
  readonly startedAt: number;
  readonly finishedNow: number;
  /** Runs at once now (the rate gate's limit) of at most `max`, and until when requests are held. */
  readonly limit?: number;
  readonly max?: number;
  readonly pausedUntil?: number;
  /** Queue runs: jobs a worker of another project version put back, waiting for one of theirs. */
  readonly waitingForVersion?: number;
}

export const emptyProgress = (total: number, startedAt: number): Progress => ({
  total,
  done: 0,
  failed: 0,
  running: 0,
  skipped: 0,
  tokens: 0,
  costUsd: 0,
  startedAt,
  finishedNow: 0,
});

/** The progress after one more finished run. */
export function withResult(p: Progress, r: BatchResult): Progress {
  const ok = r.outcome === "done";
  return {
    ...p,
    done: p.done + (ok ? 1 : 0),
    failed: p.failed + (ok ? 0 : 1),
    skipped: p.skipped + (r.skipped ? 1 : 0),
    finishedNow: p.finishedNow + (r.skipped ? 0 : 1),
    tokens: p.tokens + r.usage.input_tokens + r.usage.output_tokens,
    costUsd: p.costUsd + r.costUsd,
  };
}

const BAR = 24;

/**
 * One line: `[█████░░░] 120/300 · 3 failed · 8 running · 172 waiting · 1.2M tokens · $3.42 of
 * ~$8.55 · ETA 1m20s`, with the rate limit's pause and the lowered concurrency when there is one.
 * The estimates go by the pace and the cost per run so far. Pure: the caller draws it; `bar: false`
 * leaves the bar out (a line of a log, not a terminal's).
 */
export function progressLine(p: Progress, now: number, { bar = true }: { bar?: boolean } = {}): string {
  const finished = p.done + p.failed;
  const filled = p.total === 0 ? BAR : Math.round((finished / p.total) * BAR);
  const count = `${finished}/${p.total}`;
  const parts = [
    bar ? `[${"█".repeat(filled)}${"░".repeat(BAR - filled)}] ${count}` : count,
    `${p.failed} failed`,
    `${p.running} running`,
    `${Math.max(0, p.total - finished - p.running)} waiting`,
    `${compact(p.tokens)} tokens`,
    `$${p.costUsd.toFixed(2)}${expectedCost(p)}`,
    `ETA ${eta(p, now)}`,
  ];
  if (p.waitingForVersion) parts.push(`${p.waitingForVersion} waiting for a worker of their project version`);
  // A pause that would read "0s" (a pacing wait of a few ms) is no pause to speak of.
  if (p.pausedUntil !== undefined && duration(p.pausedUntil - now) !== "0s")
    parts.push(`rate limited: paused ${duration(p.pausedUntil - now)}`);
  if (p.limit !== undefined && p.max !== undefined && p.limit < p.max)
    parts.push(`concurrency ${p.limit}/${p.max}`);
  return parts.join(" · ");
}

/** ` of ~$8.55`: what the batch will cost in all at the cost per finished run so far. */
function expectedCost(p: Progress): string {
  const finished = p.done + p.failed;
  if (finished === 0 || finished >= p.total) return "";
  return ` of ~$${((p.costUsd / finished) * p.total).toFixed(2)}`;
}

/**
 * Off a terminal, when the next progress line is due: at the start, at every 5% more finished,
 * and every `everyMs` between (a log shows the batch is alive without a line per run).
 */
export function progressTicker(everyMs: number): (p: Progress, now: number) => boolean {
  let lastAt = Number.NEGATIVE_INFINITY;
  let lastStep = -1;
  return (p, now) => {
    const step = p.total === 0 ? 20 : Math.floor(((p.done + p.failed) / p.total) * 20);
    if (step <= lastStep && now - lastAt < everyMs) return false;
    lastStep = step;
    lastAt = now;
    return true;
  };
}

function eta(p: Progress, now: number): string {
  const left = p.total - p.done - p.failed;
  if (left <= 0) return "0s";
  if (p.finishedNow === 0) return "…";
  return duration(((now - p.startedAt) / p.finishedNow) * left);
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
