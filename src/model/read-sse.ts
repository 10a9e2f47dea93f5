/** One server-sent event: its name (`message_start`, `ping`, …) and its data line(s). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * The events of a `text/event-stream` body, as they arrive. `onChunk` is told of every chunk read
 * (a ping is life too), so a watchdog can see a stream go silent. Contract: ends when the body ends;
 * rejects when reading it fails.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onChunk: () => void,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk();
      buffer += decoder.decode(value, { stream: true });
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (event !== "" || data.length > 0) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
        } else if (line.startsWith("event:")) {
          event = line.slice(6).trim();
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""));
        }
        nl = buffer.indexOf("\n");
      }
    }
    if (event !== "" || data.length > 0) yield { event: event || "message", data: data.join("\n") };
  } finally {
    reader.releaseLock();
  }
}
