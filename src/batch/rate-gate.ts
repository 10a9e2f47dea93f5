/**
 * One gate for the model requests of every run of a batch: each request waits for its place in
 * the rate limit (requests and tokens per minute, `rate-limit.ts`: in Redis for a queue's workers,
 * in memory for a local batch — the same logic), and each answer corrects it: the tokens the
 * request really used, what the API's headers say is left, and, on a 429, a hold of every request
 * until its retry-after.
 *
 * The gate sees the requests through a `fetch` it wraps, given to the runner as `model.fetch`; the
 * model still does the retrying (and waits retry-after itself), each of its attempts passing the gate.
 */
import { readSse } from "../model/read-sse.js";
import { rateReport, retryAfterMs } from "./rate-headers.js";
import { createRateLimit, type Draw, type RateLimit } from "./rate-limit.js";

export { retryAfterMs };

/**
 * Retries of a rate-limited (or overloaded) request for a run of a batch, each after the wait the
 * API asks for: many runs share one limit, and one that gives up after the default two retries
 * fails work that only had to wait its turn.
 */
export const BATCH_MAX_RETRIES = 10;

export interface RateGate {
  /** A `fetch` that waits for the request's place in the limit, and reports each answer to it. */
  wrap(inner?: typeof globalThis.fetch): typeof globalThis.fetch;
  /** How many runs go at once (`--concurrency`): the limit spaces requests, not runs. */
  readonly limit: number;
  /** Until when requests are held (ms since the epoch); in the past when they go. */
  readonly pausedUntil: number;
  /** Rate-limit answers seen so far. */
  readonly limited: number;
  /** The limit every request passes (shared with the other workers of a queue). */
  readonly rateLimit: RateLimit;
}

export interface RateGateOptions {
  /** The most runs at once (`--concurrency`). */
  readonly max: number;
  /** The limit (default: one in this process's memory, learnt from the headers). */
  readonly rateLimit?: RateLimit;
}

export function createRateGate(options: RateGateOptions): RateGate {
  const limit = options.rateLimit ?? createRateLimit();
  const guess = estimator();
  return {
    wrap: (inner) => async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      const ticket = await limit.take(guess.draw(body), init?.signal ?? undefined);
      let res: Response;
      try {
        res = await (inner ?? globalThis.fetch)(input, init);
      } catch (e) {
        void ticket.settle(undefined);
        throw e;
      }
      await limit.observe(res.status, rateReport(res.headers), retryAfterMs(res.headers, Date.now()), ticket);
      const stream = (res.headers.get("content-type") ?? "").includes("text/event-stream");
      if (!res.ok || !res.body || !stream) {
        void ticket.settle(undefined);
        return res;
      }
      // The usage is in the stream (message_start, message_delta): read from a copy of it.
      const [mine, theirs] = res.body.tee();
      void usageOf(mine).then(
        (used) => {
          guess.learn(body, used);
          return ticket.settle(used);
        },
        () => ticket.settle(undefined),
      );
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
    get limit() {
      return Math.max(1, Math.floor(options.max));
    },
    get pausedUntil() {
      return limit.pausedUntil;
    },
    get limited() {
      return limit.limited;
    },
    rateLimit: limit,
  };
}

/**
 * What a request will take before it is sent: its input from the size of its body (tokens per
 * character as the answers so far counted them; a quarter to start with), its output as the
 * answers so far averaged. The answer corrects the guess with what was used.
 */
function estimator() {
  let perChar = 0.25;
  let output = 0;
  let seen = 0;
  return {
    draw: (body: string): Draw => ({ input: Math.ceil(body.length * perChar), output: Math.round(output) }),
    learn: (body: string, used: Draw) => {
      const weight = Math.max(0.1, 1 / ++seen);
      if (body.length > 0 && used.input > 0) perChar += weight * (used.input / body.length - perChar);
      output += weight * (used.output - output);
    },
  };
}

/** The tokens an answer's stream says were used: input (uncached and cache writes) and output. */
async function usageOf(body: ReadableStream<Uint8Array>): Promise<Draw> {
  let input = 0;
  let output = 0;
  for await (const ev of readSse(body, () => {})) {
    if (ev.event !== "message_start" && ev.event !== "message_delta") continue;
    const data = parse(ev.data);
    const usage = (ev.event === "message_start" ? data?.message?.usage : data?.usage) ?? {};
    const n = (k: string) => (typeof usage[k] === "number" ? (usage[k] as number) : undefined);
    if (n("input_tokens") !== undefined || n("cache_creation_input_tokens") !== undefined)
      input = (n("input_tokens") ?? 0) + (n("cache_creation_input_tokens") ?? 0);
    output = n("output_tokens") ?? output;
  }
  return { input, output };
}

type Usage = Record<string, unknown>;

function parse(data: string): { message?: { usage?: Usage }; usage?: Usage } | undefined {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
