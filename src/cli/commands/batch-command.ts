import path from "node:path";
import { failed } from "../../batch/batch-result.js";
import { batchIdOf } from "../../batch/batch-session-id.js";
import type { ItemSource } from "../../batch/item-source.js";
import { projectVersions } from "../../batch/project-version.js";
import { DEFAULT_QUEUE } from "../../batch/queue-keys.js";
import { BATCH_MAX_RETRIES, createRateGate } from "../../batch/rate-gate.js";
import { createRateLimit, type PerMinute } from "../../batch/rate-limit.js";
import { runBatch } from "../../batch/run-batch.js";
import { withoutLock } from "../../batch/run-item.js";
import { runnersByFolder } from "../../batch/runners-by-folder.js";
import { findProjectRoot } from "../../definitions/discover.js";
import type { Effort, Thinking } from "../../definitions/effort-thinking.js";
import { rootBudget } from "../../loop/budget.js";
import { fileTranscripts, sessionsDir } from "../../loop/transcript.js";
import { ConfigError } from "../../shared/errors.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { RATE_OPTIONS, rateFlags } from "../flags/rate-flags.js";
import { REASONING_FLAGS, reasoningOptions } from "../flags/reasoning-flags.js";
import { budgetFlag, jsonSchemaFlag } from "../flags/session-flags.js";
import { UsageError } from "../flags/usage-error.js";
import { openTrusted, printToolDiagnostics } from "../open-runner.js";
import {
  interruptions,
  loadItems,
  progressBar,
  SESSION_BUSY_EXIT,
  skippedCounter,
  skippedLine,
  stopOnOutputFailure,
  summaryLine,
  usage,
  wholeNumber,
} from "./batch-io.js";
import { restrictedWithNotice } from "./project-trust.js";
import type { RunIo } from "./run-command.js";

/** `batch`'s options: its parser and its help's Options lines. */
export const BATCH_OPTIONS = {
  concurrency: { type: "string", value: "N", help: "runs at once (default 4)" },
  "batch-id": {
    type: "string",
    value: "NAME",
    help: "the batch's name in session ids (default: FILE's name without .jsonl)",
  },
  "retry-failed": {
    type: "boolean",
    default: false,
    help: [
      "run the items that finished with another outcome than done again",
      "(with --redis: queue them again)",
    ],
  },
  model: {
    type: "string",
    value: "M",
    help: "a model id or alias (sonnet, opus, haiku); overrides agent.md",
  },
  "json-schema": {
    type: "string",
    value: "S",
    help: [
      "every run's answer must match this JSON Schema (type object); each",
      "result line carries it as structured_output",
    ],
  },
  "max-budget-usd": {
    type: "string",
    value: "N",
    help: [
      "US dollars all the batch's runs may spend together (with --redis:",
      "this run of it; each 'batch --redis' is a new run, --resume RUN goes",
      "on with the run id it said and what it spent): once reached,",
      "no run sends another request (each ends error_max_budget_usd); with",
      "--redis, kept in Redis for the runs on every worker",
    ],
  },
  effort: {
    ...REASONING_FLAGS.effort,
    help: [
      "every run's effort (low … max), over agent.md's; an item's agent (or",
      "command) with its own effort or thinking keeps it",
    ],
  },
  thinking: {
    ...REASONING_FLAGS.thinking,
    help: ["adaptive, disabled or a budget of tokens, as --effort; also", "--max-thinking-tokens N"],
  },
  "max-thinking-tokens": REASONING_FLAGS["max-thinking-tokens"],
  rpm: {
    ...RATE_OPTIONS.rpm,
    help: [
      "requests per minute all the runs send together (default: learnt",
      "from the API's answers; with --redis, set it on the workers)",
    ],
  },
  tpm: RATE_OPTIONS.tpm,
  cwd: {
    type: "string",
    value: "DIR",
    help: "the folder the project is found from (default: the current folder)",
  },
  redis: {
    type: "string",
    value: "URL",
    help: [
      "run on workers instead (see 'agentmd worker --help'): put the items on",
      "the queue at URL (redis://host:port) and, with --wait, collect results",
    ],
  },
  wait: {
    type: "boolean",
    default: false,
    help: [
      "with --redis: wait for every result and print it as it comes (stops,",
      "exit 1, if Redis lost the batch's jobs: restarted without its data)",
    ],
  },
  queue: { type: "string", value: "NAME", help: `with --redis: the queue's name (default ${DEFAULT_QUEUE})` },
  resume: {
    type: "string",
    value: "RUN",
    help: ["with --redis: continue run RUN of the batch (its budget) instead of", "starting a new one"],
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const BATCH_HELP = `Usage: agentmd batch FILE.jsonl [options]

Runs many runs of the project's agents: one a line of FILE (- for standard input), e.g.
  {"id": "pr-12", "prompt": "Review pull request 12"}
  {"id": "pr-13", "line": "/review 13", "agent": "reviewer", "cwd": "repos/a"}
'prompt' is plain text; 'line' is typed as in the REPL (/name args); 'agent' runs that
subagent; 'cwd' is the working folder of the run's tools, relative to the project folder.

Every run has its own transcript (.agentmd/sessions/<batch>-<id>-<hash>.jsonl); the hash
covers the item's prompt (or line), agent, cwd and the project's version, so a changed
item is new work. Run the same command again and items that finished before with the same
prompt, agent and version are skipped (listed on standard error), interrupted ones resumed
from their transcripts, with totals that count every part paid for. An item another agentmd
runs at that moment is left to it: each item has one writer at a time.

Each finished run is one JSON line on standard output, printed as it finishes (FILE is
read as the runs go, never held: 10,000 items cost what ten do); a progress line (done,
failed, running, waiting, tokens, cost so far and in all, ETA) goes to standard error:
redrawn in place on a terminal, else a line at every 5% and every 10 s.

Every run's requests share one rate limit (requests and tokens per minute, learnt from
the API's rate-limit headers or given by --rpm/--tpm); a 429 holds every run's next
request until its retry-after. With --redis, the workers share theirs in Redis.

Options:
${optionsHelp(BATCH_OPTIONS, 20)}

Example:
  agentmd batch reviews.jsonl --concurrency 8 > results.jsonl

Exit status: 0 every run done, 1 a run failed (or could not start; with --redis, the queue
lost the batch's jobs), 2 bad usage or a bad line in FILE, 75 an item was being run by
another agentmd (run again later), 130 interrupted (Ctrl-C; run the same command again
to resume).`;

const DEFAULT_CONCURRENCY = 4;

/** Runs `agentmd batch`; returns the exit code. */
export async function batchCommand(args: readonly string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseFlags(args, BATCH_OPTIONS);
  if (values.help) {
    io.stdout.write(`${BATCH_HELP}\n`);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    return usage(io, "batch", "give one batch file (FILE.jsonl, or - for standard input)");
  const concurrency = wholeNumber(values.concurrency, DEFAULT_CONCURRENCY);
  if (concurrency === undefined)
    return usage(io, "batch", "--concurrency must be a whole number from 1 to 1000");
  if (values.redis === undefined && (values.wait || values.queue !== undefined))
    return usage(io, "batch", "--wait and --queue go with --redis URL");
  if (values.redis === undefined && values.resume !== undefined)
    return usage(io, "batch", "--resume RUN goes with --redis URL (a local batch resumes by itself)");
  if (values.resume !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(values.resume))
    return usage(io, "batch", `'${values.resume}' cannot name a batch's run: use letters, digits, _ -`);
  if (values.redis !== undefined && !values.wait)
    return usage(io, "batch", "with --redis, add --wait (or use 'agentmd enqueue' to only queue the runs)");
  if (values.redis !== undefined && values.model !== undefined)
    return usage(
      io,
      "batch",
      "--model is for runs in this process, not with --redis (the workers' agent.md decides)",
    );
  let unattended: Pick<LocalBatch, "outputSchema" | "maxBudgetUsd" | "effort" | "thinking">;
  let perMinute: PerMinute;
  try {
    perMinute = rateFlags(values);
    const outputSchema = jsonSchemaFlag(values["json-schema"]);
    const maxBudgetUsd = budgetFlag(values["max-budget-usd"]);
    unattended = {
      ...(outputSchema && { outputSchema }),
      ...(maxBudgetUsd !== undefined && { maxBudgetUsd }),
      ...reasoningOptions(values),
    };
  } catch (e) {
    if (e instanceof UsageError) return usage(io, "batch", e.message);
    throw e;
  }
  if (values.redis !== undefined && unattended.outputSchema)
    return usage(io, "batch", "--json-schema is for runs in this process, not with --redis");
  if (values.redis !== undefined && (unattended.effort !== undefined || unattended.thinking !== undefined))
    return usage(
      io,
      "batch",
      "--effort and --thinking are for runs in this process, not with --redis (the workers' agent.md decides)",
    );
  if (values.redis !== undefined && Object.keys(perMinute).length > 0)
    return usage(
      io,
      "batch",
      "with --redis, the rate limit is the workers': give --rpm/--tpm to 'agentmd worker'",
    );
  const cwd = path.resolve(io.cwd, values.cwd ?? ".");
  const items = await loadItems(file, io);
  if (!items) return 2;
  const batchId = batchIdOf(values["batch-id"] ?? (file === "-" ? "stdin" : path.basename(file)));
  const projectDir = findProjectRoot(cwd, io.env.HOME);
  try {
    return await batchOf(values, items, batchId, projectDir, concurrency, { ...unattended, perMinute }, io);
  } finally {
    items.close();
  }
}

async function batchOf(
  values: { redis?: string; queue?: string; model?: string; resume?: string; "retry-failed": boolean },
  items: ItemSource,
  batchId: string,
  projectDir: string,
  concurrency: number,
  unattended: Pick<LocalBatch, "outputSchema" | "maxBudgetUsd" | "effort" | "thinking" | "perMinute">,
  io: RunIo,
): Promise<number> {
  // The queue's client (bullmq, ioredis) is loaded only for a batch that goes to Redis: a local
  // batch's start-up does not pay the ~110 ms they take to load.
  if (values.redis !== undefined)
    return (await import("./enqueue-command.js")).queueBatch(
      {
        redisUrl: values.redis,
        queue: values.queue,
        batchId,
        items,
        projectDir,
        retryFailed: values["retry-failed"],
        ...(values.resume !== undefined && { resume: values.resume }),
        ...(unattended.maxBudgetUsd !== undefined && { maxBudgetUsd: unattended.maxBudgetUsd }),
      },
      io,
    );
  return localBatch(
    {
      items,
      batchId,
      projectDir,
      concurrency,
      ...(values.model !== undefined && { model: values.model }),
      retryFailed: values["retry-failed"],
      ...unattended,
    },
    io,
  );
}

interface LocalBatch {
  readonly items: ItemSource;
  readonly batchId: string;
  readonly projectDir: string;
  readonly concurrency: number;
  readonly model?: string;
  readonly retryFailed: boolean;
  /** Rate limits given (`--rpm`, `--tpm`); the others are learnt from the API's headers. */
  readonly perMinute: PerMinute;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** For all the batch's runs together (in this process). */
  readonly maxBudgetUsd?: number;
  readonly effort?: Effort;
  readonly thinking?: Thinking;
}

/**
 * The batch in this process. Whatever its runs started (MCP servers) is stopped when it ends,
 * however it ends: its servers' open pipes would otherwise keep the process from exiting.
 */
async function localBatch(o: LocalBatch, io: RunIo): Promise<number> {
  const gate = createRateGate({ max: o.concurrency, rateLimit: createRateLimit({ given: o.perMinute }) });
  const project = await openTrusted(o.projectDir, restrictedWithNotice(io), io);
  if (!project) return 1;
  printToolDiagnostics(project, io.cwd, io);
  // Each item's session is held by its run of the batch (`runItem`), so the runners do not lock.
  const store = fileTranscripts(sessionsDir(o.projectDir));
  const runners = runnersByFolder(project, {
    env: io.env,
    model: {
      fetch: gate.wrap(),
      maxRetries: BATCH_MAX_RETRIES,
      ...(o.model !== undefined && { id: o.model }),
      ...(o.effort && { effort: o.effort }),
      ...(o.thinking !== undefined && { thinking: o.thinking }),
    },
    transcript: { store: withoutLock(store), required: true },
    ...(o.outputSchema && { outputSchema: o.outputSchema }),
    ...(o.maxBudgetUsd !== undefined && { budget: rootBudget(o.maxBudgetUsd) }),
  });
  try {
    runners.runnerFor({});
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr.write(`agentmd: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const stop = interruptions(io, "batch: stopping; running runs are interrupted and resume next time");
  const output = stopOnOutputFailure(io, stop.signal);
  const bar = progressBar(io);
  let anyFailed = false;
  const skipped = skippedCounter();
  const versionOf = projectVersions(o.projectDir);
  const started = Date.now();
  let summary: Awaited<ReturnType<typeof runBatch>>;
  try {
    summary = await runBatch({
      items: o.items.items(),
      total: o.items.count,
      batchId: o.batchId,
      versionOf: (item) => versionOf(item.cwd),
      runnerFor: runners.runnerFor,
      store,
      gate,
      signal: output.signal,
      retryFailed: o.retryFailed,
      onResult: (r) => {
        anyFailed ||= failed(r);
        if (r.skipped) skipped.add(r.id);
        bar.print(r);
      },
      onHeld: (item, message) => bar.note(`agentmd batch: ${item.id} not run: ${message}`),
      onProgress: bar.draw,
    });
  } finally {
    stop.dispose();
    output.dispose();
    bar.end();
    await runners.close();
  }
  const p = summary.progress;
  const left = summary.interrupted + summary.notStarted;
  if (skipped.get().count > 0) io.stderr.write(`${skippedLine(o.batchId, skipped.get())}\n`);
  io.stderr.write(
    `${summaryLine(o.batchId, p, Date.now() - started)}${left ? `, ${left} left (run the same command again to resume)` : ""}${summary.held ? `, ${summary.held} being run by another agentmd (run the same command again once it ends)` : ""}\n`,
  );
  const failure = output.failure();
  if (failure) {
    io.stderr.write(
      `agentmd batch: ${failure}; the runs stopped (run the same command again, with room to write, to resume)\n`,
    );
    return 1;
  }
  if (stop.signal.aborted) return 130;
  if (anyFailed) return 1;
  return summary.held > 0 ? SESSION_BUSY_EXIT : 0;
}
