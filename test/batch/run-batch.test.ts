import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BatchResult } from "../../src/batch/batch-result.js";
import { createRateGate } from "../../src/batch/rate-gate.js";
import { createRateLimit } from "../../src/batch/rate-limit.js";
import { runBatch } from "../../src/batch/run-batch.js";
import { withoutLock } from "../../src/batch/run-item.js";
import { createRunner } from "../../src/invocation/runner.js";
import { fileTranscripts, sessionsDir } from "../../src/loop/transcript.js";
import { answerItem, itemPrompt } from "../support/batch-script.js";
import {
  type FakeAnthropic,
  type RecordedRequest,
  type Scripted,
  startFakeAnthropic,
} from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nBe brief.\n", "a.txt": "alpha\n" });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `r${i}`,
    input: { kind: "prompt" as const, text: itemPrompt(`r${i}`) },
  }));

describe("runBatch: the rate limits of one process are shared by its runs", () => {
  it("a 429 with retry-after holds the other runs' next requests; the limit is learnt from the headers", async () => {
    const answer = answerItem();
    let first = true;
    const limits = {
      "anthropic-ratelimit-requests-limit": "6000",
      "anthropic-ratelimit-requests-remaining": "5999",
    };
    const step = (req: RecordedRequest): Scripted => {
      if (first) {
        first = false;
        return { kind: "http-error" as const, status: 429, headers: { "retry-after-ms": "300" } };
      }
      const a = answer(req);
      return a.kind === "message" ? { ...a, headers: limits } : a;
    };
    fake = await startFakeAnthropic(Array.from({ length: 20 }, () => step));
    const rateLimit = createRateLimit();
    const gate = createRateGate({ max: 4, rateLimit });
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url, fetch: gate.wrap() },
      transcript: { store: withoutLock(fileTranscripts(sessionsDir(dir))) },
    });
    const results: BatchResult[] = [];
    const summary = await runBatch({
      items: items(4),
      batchId: "b",
      versionOf: () => "v1",
      runnerFor: () => runner,
      store: fileTranscripts(sessionsDir(dir)),
      gate,
      signal: new AbortController().signal,
      onResult: (r) => results.push(r),
    });
    expect(results.map((r) => r.outcome)).toEqual(["done", "done", "done", "done"]);
    expect(summary.progress).toMatchObject({ done: 4, failed: 0 });
    expect(gate.limited).toBe(1);
    expect(gate.pausedUntil).toBeGreaterThan(0);
    // The same limiter as the workers', in memory: it learnt the limit the answers gave.
    expect(rateLimit.limits).toEqual({ requests: 6000 });
    // Four runs of two requests each, and the one answered 429 sent again.
    expect(fake.requests).toHaveLength(9);
  });

  it("stops starting items when the signal aborts, and reports what is left", async () => {
    fake = await startFakeAnthropic(Array.from({ length: 20 }, () => answerItem(100)));
    const gate = createRateGate({ max: 1 });
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url, fetch: gate.wrap() },
      transcript: { store: withoutLock(fileTranscripts(sessionsDir(dir))) },
    });
    const stop = new AbortController();
    const summary = await runBatch({
      items: items(5),
      batchId: "b",
      versionOf: () => "v1",
      runnerFor: () => runner,
      store: fileTranscripts(sessionsDir(dir)),
      gate,
      signal: stop.signal,
      onResult: () => stop.abort(),
    });
    expect(summary.progress.done).toBe(1);
    expect(summary.interrupted + summary.notStarted).toBe(4);
    expect(summary.notStarted).toBeGreaterThanOrEqual(3);
  });

  it("turns an item whose runner cannot be built into a failed result, and goes on", async () => {
    fake = await startFakeAnthropic(Array.from({ length: 4 }, () => answerItem()));
    const gate = createRateGate({ max: 2 });
    const runner = createRunner({
      projectDir: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      transcript: { store: withoutLock(fileTranscripts(sessionsDir(dir))) },
    });
    const results: BatchResult[] = [];
    await runBatch({
      items: [...items(1), { id: "far", input: { kind: "prompt", text: "x" }, cwd: "nowhere" }],
      batchId: "b",
      versionOf: () => "v1",
      runnerFor: (item) => {
        if (item.cwd) throw new Error("no such folder");
        return runner;
      },
      store: fileTranscripts(sessionsDir(dir)),
      gate,
      signal: new AbortController().signal,
      onResult: (r) => results.push(r),
    });
    expect(results.find((r) => r.id === "far")).toMatchObject({
      outcome: "error",
      message: "no such folder",
    });
    expect(results.find((r) => r.id === "r0")).toMatchObject({ outcome: "done" });
  });
});
