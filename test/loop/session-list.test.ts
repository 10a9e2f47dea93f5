import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/loop/events.js";
import { listSessions, newestSession } from "../../src/loop/session-list.js";
import { ZERO_USAGE } from "../../src/model/models.js";
import { tempDir } from "../support/fixtures.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const start = (input: string): RunEvent => ({ runId: "r", depth: 0, type: "run_start", input }) as RunEvent;
const end = (turns: number, outcome = "done"): RunEvent =>
  ({
    runId: "r",
    depth: 0,
    type: "run_end",
    outcome,
    text: "t",
    turns,
    usage: ZERO_USAGE,
    costUsd: 0,
    ms: 1,
  }) as RunEvent;
const jsonl = (events: RunEvent[]) => events.map((e) => `${JSON.stringify(e)}\n`).join("");
const file = (id: string) => path.join(dir, `${id}.jsonl`);
const at = (id: string, seconds: number) => utimesSync(file(id), seconds, seconds);

describe("listing sessions reads only what it needs", () => {
  it("-c's newest session comes from the files' times alone, whatever they hold", () => {
    writeFileSync(file("old"), jsonl([start("a"), end(1)]));
    writeFileSync(file("new"), "not a transcript at all\n");
    at("old", 1000);
    at("new", 2000);
    expect(newestSession(dir)).toBe("new");
    expect(newestSession(path.join(dir, "none"))).toBeUndefined();
  });

  it("lists prompt, turns and outcome, then reads of a transcript only what was appended since", () => {
    writeFileSync(file("s"), jsonl([start("first prompt"), end(2)]));
    expect(listSessions(dir)).toEqual([
      expect.objectContaining({ id: "s", prompt: "first prompt", turns: 2, outcome: "done" }),
    ]);
    // What was read is not read again: a listing of an unchanged file (size and time) opens nothing,
    const before = statSync(file("s"));
    const text = readFileSync(file("s"), "utf8");
    writeFileSync(file("s"), text.replace("first prompt", "FIRST PROMPT"));
    utimesSync(file("s"), before.atime, before.mtime);
    expect(listSessions(dir)[0]).toMatchObject({ prompt: "first prompt", turns: 2 });
    // and a grown one is read from where the last listing stopped.
    appendFileSync(file("s"), jsonl([start("again"), end(3, "error")]));
    expect(listSessions(dir)[0]).toMatchObject({ prompt: "first prompt", turns: 5, outcome: "error" });
  });

  it("reads a transcript in full again when it shrank, and one whose last line is not whole up to it", () => {
    writeFileSync(file("s"), jsonl([start("p"), end(2), start("q"), end(4)]));
    expect(listSessions(dir)[0]).toMatchObject({ turns: 6 });
    writeFileSync(file("s"), jsonl([start("other"), end(1)]));
    expect(listSessions(dir)[0]).toMatchObject({ prompt: "other", turns: 1 });
    const cut = JSON.stringify(end(7));
    appendFileSync(file("s"), cut.slice(0, 20));
    expect(listSessions(dir)[0]).toMatchObject({ turns: 1 });
    appendFileSync(file("s"), `${cut.slice(20)}\n`);
    expect(listSessions(dir)[0]).toMatchObject({ turns: 8 });
  });

  it("takes a damaged index for a cache miss, never for a wrong line", () => {
    writeFileSync(file("s"), jsonl([start("p"), end(2)]));
    listSessions(dir);
    writeFileSync(path.join(dir, ".summaries.json"), '{"version":1,"sessions":{"s":{"size":"x"}}}');
    expect(listSessions(dir)[0]).toMatchObject({ prompt: "p", turns: 2 });
    writeFileSync(path.join(dir, ".summaries.json"), "{not json");
    expect(listSessions(dir)[0]).toMatchObject({ prompt: "p", turns: 2 });
  });
});
