/**
 * What the Messages API says about its rate limits on every answer, read from its headers:
 * `anthropic-ratelimit-<quota>-limit` (per minute), `-remaining` and `-reset` (RFC 3339: when the
 * bucket is full again), for the quotas `requests`, `tokens` (the most restrictive token limit in
 * effect), `input-tokens` and `output-tokens`; and, on a 429, `retry-after`.
 */
export const QUOTAS = ["requests", "tokens", "input_tokens", "output_tokens"] as const;
export type Quota = (typeof QUOTAS)[number];

export interface QuotaReport {
  /** Per minute, as the API enforces it for this key. */
  readonly limit?: number;
  readonly remaining?: number;
  /** When the quota is whole again (ms since the epoch). */
  readonly resetAt?: number;
}

export type RateReport = Partial<Record<Quota, QuotaReport>>;

const HEADER_NAME: Record<Quota, string> = {
  requests: "requests",
  tokens: "tokens",
  input_tokens: "input-tokens",
  output_tokens: "output-tokens",
};

/** The rate-limit headers of an answer; a quota the answer says nothing of is absent. */
export function rateReport(h: Headers): RateReport {
  const out: RateReport = {};
  for (const q of QUOTAS) {
    const base = `anthropic-ratelimit-${HEADER_NAME[q]}`;
    const limit = count(h.get(`${base}-limit`));
    const remaining = count(h.get(`${base}-remaining`));
    const reset = Date.parse(h.get(`${base}-reset`) ?? "");
    const r: QuotaReport = {
      ...(limit !== undefined && limit > 0 && { limit }),
      ...(remaining !== undefined && { remaining }),
      ...(Number.isFinite(reset) && { resetAt: reset }),
    };
    if (Object.keys(r).length > 0) out[q] = r;
  }
  return out;
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

function count(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}
