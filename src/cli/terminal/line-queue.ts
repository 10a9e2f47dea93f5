import type { Interface } from "node:readline";

/**
 * The lines a user types, in order, for whoever reads next: the conversation's prompt, or an
 * approval question in the middle of a turn. Piped input answers the same way (the line after a
 * prompt that needs approval is its answer). `next` resolves undefined once the input has ended,
 * or when its signal aborts.
 */
export interface LineQueue {
  next(signal?: AbortSignal): Promise<string | undefined>;
}

export function lineQueue(rl: Interface): LineQueue {
  const buffered: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  rl.on("line", (line: string) => {
    const take = waiting.shift();
    if (take) take(line);
    else buffered.push(line);
  });
  rl.on("close", () => {
    ended = true;
    for (const take of waiting.splice(0)) take(undefined);
  });
  return {
    next(signal) {
      if (buffered.length > 0) return Promise.resolve(buffered.shift());
      if (ended || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const take = (line: string | undefined) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        };
        const onAbort = () => {
          const i = waiting.indexOf(take);
          if (i !== -1) waiting.splice(i, 1);
          resolve(undefined);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiting.push(take);
      });
    },
  };
}
