import { loadRecording, recordingFetch, replayFetch } from "./record-replay.js";

export interface TransportOptions {
  readonly fetch?: typeof globalThis.fetch;
  /** Store every model exchange in this JSONL file. */
  readonly record?: string;
  /** Answer from this recording: no network, no key. */
  readonly replay?: string;
}

/**
 * How requests reach the model: live (the given `fetch`, or the SDK's own), recorded, or replayed
 * from a recording. `keyless` when no API key is needed (a replay never reaches the network).
 */
export function modelTransport(options: TransportOptions): {
  readonly fetch?: typeof globalThis.fetch;
  readonly keyless: boolean;
} {
  if (options.replay) return { fetch: replayFetch(loadRecording(options.replay)), keyless: true };
  if (options.record)
    return { fetch: recordingFetch(options.record, options.fetch ?? globalThis.fetch), keyless: false };
  return { ...(options.fetch && { fetch: options.fetch }), keyless: false };
}
