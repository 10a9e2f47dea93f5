import PQueue from "p-queue";
import type { ToolResultBlockParam } from "../model/messages.js";
import { loadShellParser, NO_PARSER } from "../permissions/shell/parse-shell.js";
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
 * is to a known tool that is concurrent-safe for its input and can be interrupted; otherwise in order. Every call
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
  if (await parallelSafe(uses, cx, settings)) {
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

/**
 * Every call of the batch is to a known tool that is concurrent-safe for its input (a Bash call
 * that only reads is) and stops when the run is aborted (cooperatively, or by its process group).
 */
async function parallelSafe(
  uses: readonly ToolUse[],
  cx: CallContext,
  settings: ConcurrencySettings,
): Promise<boolean> {
  if (!settings.enabled || uses.length < 2) return false;
  const tools = uses.map((u) => cx.registry.get(u.name)?.tool);
  // Whether a command line only reads is a question for the shell parser (loaded once).
  const shell = tools.some((t) => t?.concurrencyFor) ? await loadShellParser() : NO_PARSER;
  return uses.every((u, i) => {
    const tool = tools[i];
    if (tool === undefined || tool.interrupt === "not-interruptible" || u.invalidInput !== undefined)
      return false;
    return (tool.concurrencyFor?.(u.input, shell) ?? tool.concurrency) === "concurrent-safe";
  });
}
