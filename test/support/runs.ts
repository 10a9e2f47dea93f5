import type { RunHandle } from "../../src/invocation/runner.js";
import type { RunEvent, RunResult } from "../../src/loop/events.js";

/** Reads a run to its end: every event it emitted, and its result. */
export async function drain(handle: RunHandle): Promise<{ events: RunEvent[]; result: RunResult }> {
  const events: RunEvent[] = [];
  for await (const e of handle) events.push(e);
  return { events, result: await handle.result() };
}

/** The events of one type, typed. */
export function ofType<T extends RunEvent["type"]>(
  events: readonly RunEvent[],
  type: T,
): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** Events as JSON lines (`--output stream-json`), parsed. */
export function jsonLines(stdout: string): RunEvent[] {
  return stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunEvent);
}
