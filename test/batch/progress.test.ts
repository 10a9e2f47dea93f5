import { describe, expect, it } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import { emptyProgress, progressLine, progressTicker, withResult } from "../../src/batch/progress.js";

const result = (outcome: BatchResult["outcome"], extra: Partial<BatchResult> = {}): BatchResult => ({
  id: "a",
  sessionId: "s",
  outcome,
  text: "",
  turns: 1,
  usage: {
    input_tokens: 1000,
    output_tokens: 200,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
  costUsd: 0.5,
  ...extra,
});

describe("the progress line", () => {
  it("counts done, failed, tokens and cost, and estimates what is left from this invocation's pace", () => {
    let p = emptyProgress(10, 0);
    expect(progressLine({ ...p, running: 3 }, 0)).toBe(
      "[░░░░░░░░░░░░░░░░░░░░░░░░] 0/10 · 0 failed · 3 running · 7 waiting · 0 tokens · $0.00 · ETA …",
    );
    p = withResult(p, result("done", { skipped: true }));
    p = withResult(p, result("done"));
    p = withResult(p, result("error"));
    p = withResult(p, result("done"));
    p = withResult(p, result("limit"));
    expect(p).toMatchObject({ done: 3, failed: 2, skipped: 1, finishedNow: 4, tokens: 6000, costUsd: 2.5 });
    // 4 runs finished in 40 s: 5 left take 50 s; 5 runs cost $2.50: 10 cost $5.00.
    expect(progressLine({ ...p, running: 2 }, 40_000)).toBe(
      "[████████████░░░░░░░░░░░░] 5/10 · 2 failed · 2 running · 3 waiting · 6.0k tokens · $2.50 of ~$5.00 · ETA 50s",
    );
    expect(progressLine({ ...p, running: 2 }, 40_000, { bar: false })).toMatch(/^5\/10 · 2 failed · /);
  });

  it("says when the rate limit holds requests, and how far concurrency was lowered", () => {
    const p = { ...emptyProgress(4, 0), running: 2, limit: 2, max: 8, pausedUntil: 93_000 };
    expect(progressLine(p, 90_000)).toContain("· rate limited: paused 3s · concurrency 2/8");
    expect(progressLine({ ...p, limit: 8 }, 95_000)).not.toMatch(/rate limited|concurrency/);
  });

  it("does not say 'paused 0s': a wait under half a second is no pause", () => {
    const p = { ...emptyProgress(4, 0), pausedUntil: 90_300 };
    expect(progressLine(p, 90_000)).not.toContain("rate limited");
    expect(progressLine({ ...p, pausedUntil: 90_600 }, 90_000)).toContain("rate limited: paused 1s");
  });

  it("off a terminal, is due at the start, at each 5% more finished, and after a quiet spell", () => {
    const due = progressTicker(10_000);
    const at = (finished: number) => ({ ...emptyProgress(100, 0), done: finished });
    expect(due(at(0), 0)).toBe(true);
    expect(due(at(4), 1000)).toBe(false);
    expect(due(at(5), 2000)).toBe(true);
    expect(due(at(6), 3000)).toBe(false);
    expect(due(at(6), 12_999)).toBe(true);
    expect(due(at(7), 13_000)).toBe(false);
    expect(due(at(100), 13_001)).toBe(true);
  });
});
