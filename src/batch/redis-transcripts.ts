import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { RunEvent } from "../loop/events.js";
import { checkSessionId, parseEvent, SessionError, type TranscriptStore } from "../loop/transcript.js";

/** A transcript store whose writes can be waited for. */
export interface DurableTranscripts extends TranscriptStore {
  /** Resolves once every event written so far is stored. Contract: never rejects. */
  flushed(): Promise<void>;
}

// One event appended, in order, by one writer, with no hole: a writer's first event (seq 0) makes
// it the session's writer; each later one is appended only if the one before it was. A write
// Redis refused (full, with noeviction) is never followed by one it accepts: the transcript stops
// where its last whole event is, and a resume goes on from there.
const APPEND = `
local seq = tonumber(ARGV[2])
if seq > 0 and redis.call('GET', KEYS[2]) ~= ARGV[1] .. ':' .. (seq - 1) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1] .. ':' .. seq)
return 1`;

/**
 * Transcripts as Redis lists, one event a JSON entry, so that whichever worker takes a job next
 * finds where its run stopped. Writes are sent in order on one connection and not waited for one
 * by one; `flushed()` waits for all of them (the worker waits before each model request and
 * before it records a result, so nothing the model was told, or a result rests on, can be lost
 * with the worker).
 */
export function redisTranscripts(redis: Redis, keyOf: (sessionId: string) => string): DurableTranscripts {
  let last: Promise<unknown> = Promise.resolve();
  return {
    open(id, onError) {
      const key = keyOf(checkSessionId(id));
      const writer = randomBytes(8).toString("hex");
      let seq = 0;
      let broken = false;
      const fail = (why: string) => {
        if (broken) return;
        broken = true;
        onError(`cannot write the transcript ${key}: ${why}`);
      };
      return {
        get intact() {
          return !broken;
        },
        write(event) {
          if (broken) return;
          last = redis.eval(APPEND, 2, key, `${key}:writer`, writer, seq++, JSON.stringify(event)).then(
            (appended) => {
              if (appended !== 1)
                fail("a write before this one was lost, or another worker writes the session now");
            },
            (e: Error) => fail(e.message),
          );
        },
      };
    },
    async read(id) {
      const key = keyOf(checkSessionId(id));
      const lines = await redis.lrange(key, 0, -1);
      if (lines.length === 0) throw new SessionError(`no session '${id}' in Redis (${key})`);
      const events: RunEvent[] = [];
      let skipped = 0;
      for (const line of lines) {
        const event = parseEvent(line);
        if (event) events.push(event);
        else skipped++;
      }
      return { events, skipped };
    },
    flushed: () => last.then(() => undefined),
  };
}
