import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner, type RunnerOptions } from "../../src/index.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain, ofType } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/** Long conversations do not die: near the context window they go on as a summary of themselves. */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nMain.\n", "a.txt": "alpha\n" });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  cleanup();
});

const big = { input_tokens: 900, output_tokens: 10 };
const summaryRequest = (i: number) => {
  const system = fake?.requests[i]?.body.system;
  return typeof system === "string" && system.startsWith("You summarise a conversation");
};
const messagesOf = (i: number) => (fake?.requests[i]?.body.messages ?? []) as MessageParam[];
const firstText = (m: MessageParam | undefined) =>
  typeof m?.content === "string" ? m.content : ((m?.content[0] as { text?: string } | undefined)?.text ?? "");

function runner(extra: Partial<RunnerOptions> = {}) {
  return createRunner({
    projectDir: dir,
    env: {},
    userDir: false,
    model: { apiKey: "k", baseURL: (fake as FakeAnthropic).url, maxRetries: 0 },
    limits: { contextWindow: 1_000 },
    ...extra,
  });
}

describe("compaction", () => {
  it("compacts a run near the context window, keeps the pending tool exchange, and goes on", async () => {
    fake = await startFakeAnthropic([
      { ...call("Read", { file_path: "a.txt" }), usage: big },
      text("SUMMARY: the user wants a.txt read; it was read."),
      text("Done: a.txt says alpha."),
    ]);
    const { events, result } = await drain(runner().run("read a.txt"));
    expect(result.outcome).toBe("done");
    expect(result.text).toBe("Done: a.txt says alpha.");
    expect(summaryRequest(1)).toBe(true);
    const after = messagesOf(2);
    expect(after.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(firstText(after[0])).toContain("SUMMARY: the user wants a.txt read");
    expect(((after[1]?.content ?? []) as { type: string }[])[0]?.type).toBe("tool_use");
    expect(((after[2]?.content ?? []) as { type: string }[])[0]?.type).toBe("tool_result");
    const [c] = ofType(events, "compaction");
    expect(c).toMatchObject({
      kept: 2,
      tokensBefore: 910,
      summary: "SUMMARY: the user wants a.txt read; it was read.",
    });
  });

  it("a session compacted mid-run resumes from the summary, not from the whole conversation", async () => {
    fake = await startFakeAnthropic([
      { ...call("Read", { file_path: "a.txt" }), usage: big },
      text("SUMMARY ONE"),
      text("first answer"),
      text("second answer"),
    ]);
    const r = runner();
    const first = await drain(r.run("read a.txt"));
    await drain(r.run("and now?", { resume: first.result.sessionId }));
    const resumed = messagesOf(3);
    expect(firstText(resumed[0])).toContain("SUMMARY ONE");
    expect(resumed.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(JSON.stringify(resumed)).not.toContain('"read a.txt"');
  });

  it("a request the model finds too long is compacted and sent again, once", async () => {
    fake = await startFakeAnthropic([
      text("earlier answer"),
      {
        kind: "http-error",
        status: 400,
        errorType: "invalid_request_error",
        message: "prompt is too long: 210000 tokens > 200000 maximum",
      },
      text("SUMMARY TWO"),
      text("answer after compaction"),
    ]);
    const r = runner({ limits: { contextWindow: 200_000 } });
    const first = await drain(r.run("start"));
    const { result, events } = await drain(r.run("go on", { resume: first.result.sessionId }));
    expect(result.outcome).toBe("done");
    expect(result.text).toBe("answer after compaction");
    expect(summaryRequest(2)).toBe(true);
    expect(ofType(events, "compaction")).toHaveLength(1);
    expect(firstText(messagesOf(3)[0])).toContain("SUMMARY TWO");
  });

  it("/compact: the runner summarises a session into a new one that goes on from the summary", async () => {
    fake = await startFakeAnthropic([text("the answer"), text("SUMMARY THREE"), text("next answer")]);
    const r = runner({ limits: { contextWindow: 200_000 } });
    const first = await drain(r.run("question one"));
    const compacted = await r.compact(first.result.sessionId, { instructions: "keep the numbers" });
    expect(compacted).toMatchObject({ ok: true, summary: "SUMMARY THREE" });
    const ask = messagesOf(1)[0];
    expect(firstText(ask)).toContain("question one");
    expect(firstText(ask)).toContain("Also: keep the numbers");
    if (!compacted.ok) return;
    expect(compacted.sessionId).not.toBe(first.result.sessionId);
    await drain(r.run("question two", { resume: compacted.sessionId }));
    expect(messagesOf(2).map((m) => firstText(m))).toEqual([
      expect.stringContaining("SUMMARY THREE"),
      "question two",
    ]);
    expect(await r.compact("no-such-session")).toMatchObject({ ok: false });
  });
});
