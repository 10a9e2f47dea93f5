import type { Redis } from "ioredis";
import type { RunEvent } from "../loop/events.js";
import { checkSessionId, parseEvent, SessionError, type TranscriptStore } from "../loop/transcript.js";

/** A transcript store whose writes can be waited for. */
export interface DurableTranscripts extends TranscriptStore {
  /** Resolves once every event written so far is stored. Contract: never rejects. */
  flushed(): Promise<void>;
}

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
      let broken = false;
      return {
        write(event) {
          if (broken) return;
          last = redis.rpush(key, JSON.stringify(event)).catch((e: Error) => {
            if (broken) return;
            broken = true;
            onError(`cannot write the transcript ${key}: ${e.message}`);
          });
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
