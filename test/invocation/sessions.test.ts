import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { RunEvent } from "../../src/loop/events.js";
import { SessionError, type TranscriptStore } from "../../src/loop/transcript.js";
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

const runnerOn = (extra: { store?: TranscriptStore } = {}) =>
  createRunner({
    cwd: dir,
    env: {},
    model: { apiKey: "k", baseURL: fake.url },
    main: { name: "m", "allowed-tools": "Read", body: "Be brief." },
    ...(extra.store && { transcript: { store: extra.store } }),
  });

const messagesOf = (i: number) => fake.requests[i]?.body.messages as MessageParam[];
const sessionFile = (id: string) => path.join(dir, ".agentmd/sessions", `${id}.jsonl`);

/** Keeps a transcript's lines up to and including the first `message_end`: a crash during the call. */
function cutAfterFirstMessageEnd(file: string): void {
  const lines = readFileSync(file, "utf8").trim().split("\n");
  const i = lines.findIndex((l) => (JSON.parse(l) as RunEvent).type === "message_end");
  writeFileSync(file, `${lines.slice(0, i + 1).join("\n")}\n`);
}

describe("sessions a caller names, continues and stores", () => {
  it("names a new session with sessionId, and refuses an id that cannot name one", async () => {
    fake = await startFakeAnthropic([text("ok")]);
    const runner = runnerOn();
    const { result } = await drain(runner.run("go", { sessionId: "batch-a-1" }));
    expect(result.sessionId).toBe("batch-a-1");
    expect(existsSync(sessionFile("batch-a-1"))).toBe(true);
    await expect(runner.run("go", { sessionId: "../escape" }).result()).rejects.toThrow(SessionError);
  });

  it("continues an interrupted run from its transcript: the recorded answer's calls run, the model is not asked it again", async () => {
    fake = await startFakeAnthropic([call("Read", { file_path: "a.txt" }), text("first")]);
    const runner = runnerOn();
    await drain(runner.run("read a.txt", { sessionId: "s1" }));
    cutAfterFirstMessageEnd(sessionFile("s1"));
    fake.push(text("resumed"));
    const { result } = await drain(runner.run("read a.txt", { resume: "s1", continue: true }));
    expect(result).toMatchObject({ outcome: "done", text: "resumed" });
    // Two requests before (the call, the answer), one after: the call's turn was not asked again.
    expect(fake.requests).toHaveLength(3);
    const sent = messagesOf(2);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(sent[2]?.content)).toContain("alpha");
    expect(JSON.stringify(sent[2]?.content)).not.toContain("Interrupted");
    expect(JSON.stringify(sent).split("read a.txt")).toHaveLength(2);
  });

  it("starts a new turn when the continued conversation had ended with the model's answer", async () => {
    fake = await startFakeAnthropic([text("first"), text("second")]);
    const runner = runnerOn();
    await drain(runner.run("one", { sessionId: "s2" }));
    await drain(runner.run("two", { resume: "s2", continue: true }));
    expect(messagesOf(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("keeps a session in a store of the caller's, which it reads back to continue", async () => {
    const kept = new Map<string, RunEvent[]>();
    const store: TranscriptStore = {
      open: (id) => ({ write: (e) => kept.set(id, [...(kept.get(id) ?? []), e]) }),
      read: async (id) => {
        const events = kept.get(id);
        if (!events) throw new SessionError(`no session '${id}'`);
        return { events, skipped: 0 };
      },
    };
    fake = await startFakeAnthropic([call("Read", { file_path: "a.txt" }), text("first")]);
    const runner = runnerOn({ store });
    await drain(runner.run("read a.txt", { sessionId: "kept" }));
    expect(kept.get("kept")?.at(-1)).toMatchObject({ type: "run_end", outcome: "done" });
    expect(existsSync(path.join(dir, ".agentmd"))).toBe(false);
    const cut = kept.get("kept") ?? [];
    kept.set("kept", cut.slice(0, cut.findIndex((e) => e.type === "message_end") + 1));
    fake.push(text("resumed"));
    const { result } = await drain(runner.run("read a.txt", { resume: "kept", continue: true }));
    expect(result.text).toBe("resumed");
    expect(messagesOf(2)).toHaveLength(3);
    await expect(runner.run("x", { resume: "missing" }).result()).rejects.toThrow(SessionError);
  });
});
