import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runItem } from "../../src/batch/run-item.js";
import { sessionState } from "../../src/batch/session-state.js";
import { createRunner } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import type { TranscriptStore } from "../../src/loop/transcript.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { call, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, { "a.txt": "alpha\n" });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

/** The events of a real run: a Read, then an answer. */
async function realRun(): Promise<RunEvent[]> {
  fake = await startFakeAnthropic([call("Read", { file_path: "a.txt" }), text("the answer")]);
  const runner = createRunner({
    cwd: dir,
    env: {},
    model: { apiKey: "k", baseURL: fake.url },
    main: { name: "m", "allowed-tools": "Read", body: "b" },
    transcript: { enabled: false },
  });
  return (await drain(runner.run("go"))).events;
}

const upTo = (events: RunEvent[], type: RunEvent["type"], nth = 1) => {
  let seen = 0;
  return events.slice(0, events.findIndex((e) => e.type === type && ++seen === nth) + 1);
};

describe("where a session stands, from its transcript", () => {
  it("tells new, interrupted and finished runs apart wherever the transcript was cut", async () => {
    const events = await realRun();
    expect(sessionState([]).kind).toBe("new");
    expect(sessionState(upTo(events, "run_start")).kind).toBe("new");
    expect(sessionState(upTo(events, "user_message")).kind).toBe("interrupted");
    expect(sessionState(upTo(events, "message_end")).kind).toBe("interrupted");
    expect(sessionState(upTo(events, "tool_end")).kind).toBe("interrupted");
    expect(sessionState(events)).toEqual({
      kind: "finished",
      result: expect.objectContaining({ outcome: "done", text: "the answer", turns: 2 }),
    });
    expect(sessionState(events)).not.toHaveProperty("result.resumed");
  });

  it("takes a run whose final answer was written, but not its end, as finished with that answer", async () => {
    const events = await realRun();
    const cut = upTo(events, "message_end", 2);
    expect(cut.at(-1)?.type).toBe("message_end");
    expect(sessionState(cut)).toEqual({
      kind: "finished",
      result: expect.objectContaining({ outcome: "done", text: "the answer", turns: 2, resumed: true }),
      unclosed: expect.objectContaining({ runId: expect.stringMatching(/^run-/) }),
    });
  });

  it("closes such a run's transcript when its item comes up again, asking the model nothing", async () => {
    const events = await realRun();
    const asked = fake.requests.length;
    const kept = new Map([["s", upTo(events, "message_end", 2)]]);
    const store: TranscriptStore = {
      open: (id) => ({ write: (e) => kept.set(id, [...(kept.get(id) ?? []), e]) }),
      read: (id) => ({ events: kept.get(id) ?? [], skipped: 0 }),
    };
    const runner = createRunner({ cwd: dir, env: {}, model: { apiKey: "k", baseURL: fake.url } });
    const item = { id: "a", input: { kind: "prompt" as const, text: "go" } };
    const run = await runItem(runner, store, item, "s", { signal: new AbortController().signal });
    expect(run).toMatchObject({ kind: "finished", ran: false, result: { id: "a", text: "the answer" } });
    expect(kept.get("s")?.at(-1)).toMatchObject({ type: "run_end", outcome: "done", text: "the answer" });
    expect(sessionState(kept.get("s") ?? [])).not.toHaveProperty("unclosed");
    expect(fake.requests.length).toBe(asked);
  });

  it("continues an aborted run, and one started again after its end was aborted", async () => {
    const events = await realRun();
    const end = events.at(-1) as RunEvent;
    const aborted = [...upTo(events, "tool_end"), { ...end, outcome: "aborted" } as RunEvent];
    expect(sessionState(aborted).kind).toBe("interrupted");
    const finishedThenAgain = [...events, ...upTo(events, "user_message")];
    expect(sessionState(finishedThenAgain).kind).toBe("interrupted");
  });
});
