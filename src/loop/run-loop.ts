import type { MessageParam } from "../model/messages.js";
import { answerCalls, answerOpenCalls, answerResumed } from "./answer-calls.js";
import { needsCompaction } from "./auto-compact.js";
import { reached, reachedMessage, refreshShared } from "./budget.js";
import { endRun, lastAssistantText } from "./end-run.js";
import type { RunResult } from "./events.js";
import { baseOf, compact, type Ending, type LoopConfig, type LoopState, newLoopState } from "./loop-state.js";
import { nextStep } from "./next-step.js";
import { offerTools } from "./offer-tools.js";
import { beforeStop } from "./stop-hooks.js";
import { takeTurn } from "./take-turn.js";

export type { LoopConfig } from "./loop-state.js";

/**
 * The run loop, written once as named steps over one `LoopState`: offer tools, take a turn, answer
 * its calls, decide what's next — until the model stops, a limit is hit, or the run is aborted —
 * then end. Everything it does is an event on `call.emit`. `messages` is the conversation so far,
 * ending with the new user message; it is extended in place, and every tool_use in it gets
 * exactly one tool_result, however the run ends. Contract: never rejects on a model's or a tool's
 * failure (those are outcomes).
 */
export async function runLoop(cfg: LoopConfig, messages: MessageParam[]): Promise<RunResult> {
  const started = performance.now();
  const state = newLoopState(messages);
  await answerResumed(cfg, state);
  const ending = cfg.call.signal.aborted ? { outcome: "aborted" as const } : await converse(cfg, state);
  await stopBackground(cfg);
  return end(cfg, state, ending, performance.now() - started);
}

async function converse(cfg: LoopConfig, state: LoopState): Promise<Ending> {
  for (;;) {
    deliverNotices(cfg, state);
    offerTools(cfg, state);
    const stopped = await beforeTurn(cfg, state);
    if (stopped) return stopped;
    const turn = await takeTurn(cfg, state);
    if (turn.kind === "ended") return turn.ending;
    await answerCalls(cfg, state, turn);
    const next = await nextStep(cfg, state, turn);
    if (next.kind === "end") {
      if (next.ending.outcome !== "done") return next.ending;
      // Background tasks still running: the run waits for the next to end, and goes on with it.
      const background = cfg.call.background;
      if (background && background.running > 0) {
        await background.next(cfg.call.signal);
        if (cfg.call.signal.aborted) return { outcome: "aborted" };
        continue;
      }
      const stopped = await beforeStop(cfg, state);
      if (stopped) return stopped;
    }
  }
}

/** What background tasks that ended said, added to the conversation before the next request. */
function deliverNotices(cfg: LoopConfig, state: LoopState): void {
  const notices = cfg.call.background?.take() ?? [];
  if (notices.length === 0) return;
  // A user turn of its own (the API joins it to the tool results before it), as a transcript rebuilds it.
  const content = notices.join("\n\n");
  state.messages.push({ role: "user", content });
  cfg.call.emit({ ...baseOf(cfg), type: "user_message", content });
}

/** A run that ends with background tasks still running stops them, and waits for them, saying so. */
async function stopBackground(cfg: LoopConfig): Promise<void> {
  const background = cfg.call.background;
  if (!background || background.running === 0) return;
  for (const name of await background.stopAll())
    cfg.call.emit({
      ...baseOf(cfg),
      type: "warning",
      message: `the background task ${name} was stopped: the run that started it ended before it did`,
    });
  background.take();
}

/** Before a request: the budget, the turn limit, and a conversation near the context window compacted. */
async function beforeTurn(cfg: LoopConfig, state: LoopState): Promise<Ending | undefined> {
  if (cfg.budget) await refreshShared(cfg.budget);
  const spent = cfg.budget && reached(cfg.budget);
  if (spent) {
    const message = reachedMessage(spent);
    cfg.call.emit({ ...baseOf(cfg), type: "limit", kind: "max_budget_usd", message });
    return { outcome: "limit", message, limit: "max_budget_usd" };
  }
  if (state.turns >= cfg.maxIterations) {
    const message = `the run stopped after ${cfg.maxIterations} model turns (the turn limit: --max-turns, or maxIterations in agent.md); raise it or ask for less`;
    cfg.call.emit({ ...baseOf(cfg), type: "limit", kind: "max_iterations", message });
    return { outcome: "limit", message, limit: "max_iterations" };
  }
  // A conversation near the model's context window goes on as a summary of itself.
  if (needsCompaction(state.contextTokens, cfg.contextWindow)) {
    await compact(cfg, state);
    if (cfg.call.signal.aborted) return { outcome: "aborted" };
  }
  return undefined;
}

/** The end step: the conversation made whole, then one `RunEnd` for both run_end and the result. */
function end(cfg: LoopConfig, state: LoopState, ending: Ending, ms: number): RunResult {
  const { call } = cfg;
  answerOpenCalls(cfg, state);
  if (ending.outcome === "aborted")
    call.emit({ ...baseOf(cfg), type: "abort", message: "the run was aborted" });
  const { usage, costUsd, costUnknown } = call.state.meter;
  const run = { runId: call.runId, depth: call.depth, sessionId: cfg.sessionId, emit: call.emit };
  const answer = ending.outcome === "done" ? state.structured.accepted : undefined;
  return endRun(
    run,
    {
      outcome: ending.outcome,
      text: answer ? JSON.stringify(answer.value) : lastAssistantText(state.messages),
      ...(answer && { structuredOutput: answer.value }),
      ...(ending.limit && { limit: ending.limit }),
      turns: state.turns,
      usage,
      costUsd,
      ...(costUnknown && { costUnknown }),
      ...(ending.message !== undefined && { message: ending.message }),
    },
    state.messages,
    ms,
  );
}
