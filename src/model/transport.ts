import { loadRecording, recordingFetch, replayFetch } from "./record-replay.js";

export interface TransportOptions {
  readonly fetch?: typeof globalThis.fetch;
  /** Store every model exchange in this JSONL file. */
  readonly record?: string;
  /** Answer from this recording: no network, no key. */
  readonly replay?: string;
}

/**
 * How requests reach the model: live (the given `fetch`, or the SDK's own), recorded, or replayed
 * from a recording. `keyless` when no API key is needed (a replay never reaches the network).
 */
export function modelTransport(
  options: TransportOptions,
  notice: (message: string) => void,
): { readonly fetch?: typeof globalThis.fetch; readonly keyless: boolean } {
  if (options.replay)
    return { fetch: replayFetch(loadRecording(options.replay), (n) => notice(n.message)), keyless: true };
  if (options.record)
    return { fetch: recordingFetch(options.record, options.fetch ?? globalThis.fetch), keyless: false };
  return { ...(options.fetch && { fetch: options.fetch }), keyless: false };
}

/**
 * Wraps a transport to see the SDK's own retries (408/409/429/5xx, honouring retry-after) and report
 * each as it is decided; the SDK still does the retrying.
 */
export function observeRetries(
  inner: typeof globalThis.fetch | undefined,
  maxRetries: number,
  onRetry: (attempt: number, reason: string, delayMs: number) => void,
): typeof globalThis.fetch {
  const base = inner ?? globalThis.fetch;
  return async (input, init) => {
    const res = await base(input, init);
    if (res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500) {
      const count = Number(new Headers(init?.headers).get("x-stainless-retry-count") ?? 0);
      if (count < maxRetries && res.headers.get("x-should-retry") !== "false") {
        onRetry(count + 1, `HTTP ${res.status}`, retryAfterMs(res.headers));
      }
    }
    return res;
  };
}

function retryAfterMs(h: Headers): number {
  const ms = Number(h.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const s = Number(h.get("retry-after"));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}
