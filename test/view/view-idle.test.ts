import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../../src/view/view-server.js";
import { tempDir } from "../support/fixtures.js";
import { until } from "../support/until.js";

const SESSIONS = 1000;
const line = (e: Record<string, unknown>) => `${JSON.stringify({ runId: "r", depth: 0, ...e })}\n`;
const session = (prompt: string) =>
  line({ type: "run_start", sessionId: "s", agent: "main", model: "m", tools: [], input: prompt }) +
  line({ type: "user_message", content: prompt });
const ended = line({
  type: "run_end",
  outcome: "done",
  text: "",
  turns: 2,
  usage: { input_tokens: 0, output_tokens: 0 },
  costUsd: 0.5,
  ms: 1,
});

/** The live sessions list as the page reads it: each event's rows, and each keep-alive comment. */
function openList(server: ViewServer): { events: unknown[][]; beats: () => number; close: () => void } {
  const at = new URL(server.url);
  const events: unknown[][] = [];
  let body = "";
  const req = http.get(
    new URL("/api/sessions/live", at.origin),
    { headers: { authorization: `Bearer ${at.searchParams.get("token")}` } },
    (res) => {
      res.setEncoding("utf8").on("data", (d: string) => {
        body += d;
        for (let end = body.indexOf("\n\n"); end >= 0; end = body.indexOf("\n\n")) {
          const block = body.slice(0, end);
          body = body.slice(end + 2);
          if (block.startsWith("data: ")) events.push(JSON.parse(block.slice(6)) as unknown[]);
          else if (block.startsWith(":")) beatCount++;
        }
      });
    },
  );
  req.on("error", () => {});
  let beatCount = 0;
  return { events, beats: () => beatCount, close: () => req.destroy() };
}

describe("the view on an idle project with many sessions", () => {
  let dir: string;
  let cleanup: () => void;
  let server: ViewServer;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < SESSIONS; i++)
      writeFileSync(path.join(dir, `s${i}.jsonl`), session(`task ${i}`) + ended);
    server = await startViewServer({ port: 0, sessionsDir: dir, project: dir, pollMs: 10 });
  });
  afterEach(async () => {
    await server.close();
    cleanup();
  });

  it("writes nothing while nothing changes, and shows a session that changed", {
    timeout: 180_000,
  }, async () => {
    const index = path.join(dir, ".summaries.json");
    const list = openList(server);
    try {
      await until(() => list.events.length > 0, { what: "the first list", timeoutMs: 60_000 });
      expect(list.events[0]).toHaveLength(SESSIONS);
      const written = statSync(index);
      // A keep-alive comment is sent after 30 looks that found nothing new: 60 looks, no write.
      await until(() => list.beats() >= 2, { what: "two keep-alive comments", timeoutMs: 60_000 });
      const after = statSync(index);
      expect([after.ino, after.mtimeMs, after.size]).toEqual([written.ino, written.mtimeMs, written.size]);
      expect(list.events).toHaveLength(1);

      appendFileSync(path.join(dir, "s7.jsonl"), session("again") + ended);
      writeFileSync(path.join(dir, "new.jsonl"), session("a new one"));
      const seen = await until(
        () =>
          list.events.find((rows) => rows.length === SESSIONS + 1) as
            | { id: string; turns: number }[]
            | undefined,
        { what: "the list with the new and the changed session", timeoutMs: 60_000 },
      );
      expect(seen.find((r) => r.id === "new")).toMatchObject({ title: "a new one", state: "interrupted" });
      await until(
        () => (list.events.at(-1) as { id: string; turns: number }[]).find((r) => r.id === "s7")?.turns === 4,
        { what: "the changed session's turns", timeoutMs: 60_000 },
      );
      expect(statSync(index).ino).not.toBe(written.ino);
    } finally {
      list.close();
    }
  });
});
