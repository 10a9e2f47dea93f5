/**
 * One gate for the model requests of every run of a process, so that a rate limit seen by one run
 * slows them all: a 429 (or 529) halves how many runs go at once and, when it says `retry-after`,
 * holds every new request until then; a streak of answers (to requests sent since the last decrease)
 * as long as the current limit adds one back (additive increase, multiplicative decrease, as TCP
 * does).
 *
 * The gate sees the responses through a `fetch` it wraps, given to the runner as `model.fetch`; the
 * SDK still does the retrying (and waits retry-after itself), each of its attempts passing the gate.
 */
/**
 * Retries of a rate-limited (or overloaded) request for a run of a batch, each after the wait the
 * API asks for: many runs share one limit, and one that gives up after the default two retries
 * fails work that only had to wait its turn.
 */
export const BATCH_MAX_RETRIES = 10;

export interface RateGate {
  /** A `fetch` that waits while the gate is shut, and reports each response to it. */
  wrap(inner?: typeof globalThis.fetch): typeof globalThis.fetch;
  /** How many runs should go at once now: from 1 up to the ceiling it was made with. */
  readonly limit: number;
  /** When new requests may go again (ms since the epoch); in the past when the gate is open. */
  readonly pausedUntil: number;
  /** Rate-limit answers seen so far. */
  readonly limited: number;
}

export interface RateGateOptions {
  /** The most runs at once (`--concurrency`); the gate starts there. */
  readonly max: number;
  /** Told each time the limit or the pause changes. */
  readonly onChange?: (gate: RateGate) => void;
  readonly now?: () => number;
  /** Waits `ms`, or less when `signal` aborts (the request then fails on its own). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const LIMITED = new Set([429, 529]);

export function createRateGate(options: RateGateOptions): RateGate {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const max = Math.max(1, Math.floor(options.max));
  let limit = max;
  let pausedUntil = 0;
  let limited = 0;
  let streak = 0;
  // Requests sent before the last decrease cannot tell us anything new: a burst of 429s answering
  // requests that were all in flight together halves the limit once, not once each.
  let epoch = 0;

  const gate: RateGate = {
    wrap: (inner) => async (input, init) => {
      const signal = init?.signal ?? undefined;
      while (now() < pausedUntil && !signal?.aborted) await sleep(pausedUntil - now(), signal);
      const sentIn = epoch;
      const res = await (inner ?? globalThis.fetch)(input, init);
      observe(res, sentIn);
      return res;
    },
    get limit() {
      return limit;
    },
    get pausedUntil() {
      return pausedUntil;
    },
    get limited() {
      return limited;
    },
  };

  function observe(res: Response, sentIn: number): void {
    if (LIMITED.has(res.status)) {
      limited++;
      streak = 0;
      const wait = retryAfterMs(res.headers, now());
      if (wait > 0) pausedUntil = Math.max(pausedUntil, now() + wait);
      if (sentIn === epoch) {
        epoch++;
        limit = Math.max(1, Math.floor(limit / 2));
      }
      options.onChange?.(gate);
    } else if (res.ok && sentIn === epoch && limit < max && ++streak >= limit) {
      streak = 0;
      limit++;
      options.onChange?.(gate);
    }
  }
  return gate;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; 0 when absent. */
export function retryAfterMs(h: Headers, nowMs: number): number {
  const ms = Number(h.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = h.get("retry-after");
  if (raw === null || raw.trim() === "") return 0;
  const s = Number(raw);
  if (Number.isFinite(s)) return s > 0 ? s * 1000 : 0;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : 0;
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
