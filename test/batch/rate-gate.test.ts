import { describe, expect, it } from "vitest";
import { createRateGate, retryAfterMs } from "../../src/batch/rate-gate.js";
import { rateReport } from "../../src/batch/rate-headers.js";
import { createRateLimit } from "../../src/batch/rate-limit.js";
import { until } from "../support/until.js";

/** An answer as the Messages API streams it, with its usage and the headers given. */
function streamed(headers: Record<string, string>, usage = { input: 3, output: 2 }) {
  const events = [
    `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { usage: { input_tokens: usage.input, output_tokens: 1 } } })}\n\n`,
    `event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", usage: { output_tokens: usage.output } })}\n\n`,
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
  ];
  return new Response(events.join(""), {
    status: 200,
    headers: { "content-type": "text/event-stream", ...headers },
  });
}

describe("the rate gate of a local batch (the limit in this process's memory)", () => {
  it("spaces the requests evenly: asked at once, one goes and the others wait their places", async () => {
    // 60 a minute: one a second (fixed windows let a whole window's worth go at once).
    const gate = createRateGate({ max: 15, rateLimit: createRateLimit({ given: { requests: 60 } }) });
    let sent = 0;
    const fetch = gate.wrap(async () => {
      sent++;
      return new Response("{}");
    });
    const controller = new AbortController();
    const asked = Date.now();
    const all = Array.from({ length: 15 }, () => fetch("http://x", { signal: controller.signal }));
    await until(() => sent === 1, { what: "the first request sent" });
    // The last of the fifteen has its place 14 s on.
    await until(() => gate.pausedUntil >= asked + 14_000, { what: "the places reserved" });
    expect(sent).toBe(1);
    expect(await gate.rateLimit.left("requests")).toBe(0);
    // Aborted while waiting, the rest are sent at once and fail on their own (here: answered).
    controller.abort();
    await Promise.all(all);
    expect(sent).toBe(15);
  });

  it("learns the limits from an answer's headers, and corrects the tokens with the usage", async () => {
    const limit = createRateLimit({ shortestWindowSeconds: 10 });
    const gate = createRateGate({ max: 4, rateLimit: limit });
    const headers = {
      "anthropic-ratelimit-requests-limit": "60",
      "anthropic-ratelimit-requests-remaining": "59",
      "anthropic-ratelimit-tokens-limit": "60",
      "anthropic-ratelimit-tokens-remaining": "100",
    };
    const fetch = gate.wrap(async () => streamed(headers, { input: 3, output: 2 }));
    await (await fetch("http://x", { method: "POST", body: "x".repeat(400) })).text();
    expect(limit.limits).toEqual({ requests: 60, tokens: 60 });
    // Known now: the next request takes its place (the one after it is a second on) and its
    // tokens from the window (10 per window), its estimate then corrected to the 3 + 2 it used.
    await (await fetch("http://x", { method: "POST", body: "x" })).text();
    expect(await limit.left("requests")).toBe(0);
    await until(async () => (await limit.left("tokens")) === 5, { what: "the tokens corrected to 5 used" });
  });

  it("the request that learnt the limit counts in the spacing: no place is free until an interval after it", async () => {
    const limit = createRateLimit();
    const probe = await limit.take({ input: 0, output: 0 });
    // 6 a minute: one place every 10 s; the probe took the first.
    await limit.observe(200, { requests: { limit: 6, remaining: 5 } }, 0, probe);
    expect(limit.limits).toEqual({ requests: 6 });
    expect(await limit.left("requests")).toBe(0);
  });

  it("keeps to what the API says is left when that is less than the window's", async () => {
    const limit = createRateLimit({ given: { tokens: 600 }, shortestWindowSeconds: 10 });
    const fetch = createRateGate({ max: 4, rateLimit: limit }).wrap(async () =>
      streamed({ "anthropic-ratelimit-tokens-remaining": "2" }, { input: 1, output: 0 }),
    );
    await (await fetch("http://x")).text();
    expect(await limit.left("tokens")).toBe(2);
  });

  it("gives no request a place before the reset when the API says none is left", async () => {
    const resetAt = Math.ceil((Date.now() + 60_000) / 1000) * 1000;
    const gate = createRateGate({ max: 4, rateLimit: createRateLimit({ given: { requests: 6000 } }) });
    let sent = 0;
    const fetch = gate.wrap(async () => {
      sent++;
      return streamed({
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": new Date(resetAt).toISOString(),
      });
    });
    await (await fetch("http://x")).text();
    const controller = new AbortController();
    const next = fetch("http://x", { signal: controller.signal });
    // 6000 a minute is one every 10 ms; the next place is at the reset.
    await until(() => gate.pausedUntil >= resetAt, { what: "the next place at the reset" });
    expect(sent).toBe(1);
    controller.abort();
    await next;
  });

  it("holds every request after a 429 with retry-after, until then", async () => {
    const limit = createRateLimit();
    const gate = createRateGate({ max: 4, rateLimit: limit });
    const answers = [new Response("{}", { status: 429, headers: { "retry-after": "1" } })];
    const sentAt: number[] = [];
    const fetch = gate.wrap(async () => {
      sentAt.push(Date.now());
      return answers.shift() ?? new Response("{}");
    });
    expect((await fetch("http://x")).status).toBe(429);
    const heldUntil = gate.pausedUntil;
    expect(gate.limited).toBe(1);
    await Promise.all([fetch("http://x"), fetch("http://x")]);
    expect(sentAt).toHaveLength(3);
    for (const t of sentAt.slice(1)) expect(t).toBeGreaterThanOrEqual(heldUntil - 5);
  });

  it("reads the rate-limit headers of every quota", () => {
    const reset = "2026-12-02T03:00:00Z";
    const h = new Headers({
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "49",
      "anthropic-ratelimit-requests-reset": reset,
      "anthropic-ratelimit-input-tokens-limit": "30000",
      "anthropic-ratelimit-output-tokens-remaining": "7000",
      "anthropic-ratelimit-tokens-limit": "junk",
    });
    expect(rateReport(h)).toEqual({
      requests: { limit: 50, remaining: 49, resetAt: Date.parse(reset) },
      input_tokens: { limit: 30000 },
      output_tokens: { remaining: 7000 },
    });
  });

  it.each([
    [{ "retry-after-ms": "250" }, 250],
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after": new Date(1_005_000).toUTCString() }, 5000],
    [{ "retry-after": "soon" }, 0],
    [{}, 0],
  ])("reads %j as %i ms", (headers, ms) => {
    expect(retryAfterMs(new Headers(headers), 1_000_000)).toBe(ms);
  });
});
