import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import PQueue from "p-queue";
import type { CallContext, ToolUse } from "./execute-call.js";
import { executeCall, INTERRUPTED } from "./execute-call.js";

export interface ConcurrencySettings {
  /** agent.md `toolConcurrency.enabled`; default on. */
  readonly enabled: boolean;
  /** The most calls of one batch that run at once; default maxConcurrency. */
  readonly perBatchMax: number;
}

/**
 * Runs the tool calls of one response and returns their results in `tool_use` order. A batch runs
 * in parallel only when (1) parallelism is on and there are at least two calls, and (2) every call
 * is to a known, concurrent-safe, cooperatively interruptible tool; otherwise in order. Every call
 * takes a slot of the runner's one global pool (maxConcurrency), shared by all runs of the process;
 * a call that spawns a child run takes none, so that a parent waiting on its children never holds
 * a slot they need.
 */
export async function dispatchBatch(
  uses: readonly ToolUse[],
  cx: CallContext,
  pool: PQueue,
  settings: ConcurrencySettings,
): Promise<ToolResultBlockParam[]> {
  const slot = <T>(use: ToolUse, work: () => Promise<T>): Promise<T> =>
    cx.registry.get(use.name)?.tool.spawnsRuns ? work() : (pool.add(work) as Promise<T>);
  const run = (use: ToolUse) => slot(use, () => executeCall(use, cx)).then((o) => o.block);
  if (parallelSafe(uses, cx, settings)) {
    const batch = new PQueue({ concurrency: Math.max(1, settings.perBatchMax) });
    return Promise.all(uses.map((use) => batch.add(() => run(use))));
  }
  const results: ToolResultBlockParam[] = [];
  for (const use of uses) {
    if (cx.signal.aborted) {
      cx.emit({
        runId: cx.runId,
        depth: cx.depth,
        type: "tool_start",
        id: use.id,
        name: use.name,
        input: use.input,
      });
      cx.emit({
        runId: cx.runId,
        depth: cx.depth,
        type: "tool_end",
        id: use.id,
        name: use.name,
        decision: "interrupted",
        isError: true,
        content: INTERRUPTED,
        ms: 0,
      });
      results.push({ type: "tool_result", tool_use_id: use.id, content: INTERRUPTED, is_error: true });
      continue;
    }
    results.push(await run(use));
  }
  return results;
}

function parallelSafe(uses: readonly ToolUse[], cx: CallContext, settings: ConcurrencySettings): boolean {
  if (!settings.enabled || uses.length < 2) return false;
  return uses.every((u) => {
    const tool = cx.registry.get(u.name)?.tool;
    return tool !== undefined && tool.concurrency === "concurrent-safe" && tool.interrupt === "cooperative";
  });
}
