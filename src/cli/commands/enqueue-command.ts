import { randomUUID } from "node:crypto";
import path from "node:path";
import { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { failed } from "../../batch/batch-result.js";
import { batchIdOf } from "../../batch/batch-session-id.js";
import { collectResults } from "../../batch/collect-results.js";
import {
  answered,
  bullConnection,
  closeBull,
  connectionWarnings,
  connectRedis,
  RedisUnavailableError,
  redisFailure,
  shownUrl,
} from "../../batch/connect-redis.js";
import { type Enqueued, enqueueItems } from "../../batch/enqueue-items.js";
import type { ItemSource } from "../../batch/item-source.js";
import { projectVersions } from "../../batch/project-version.js";
import { setQueueBudget } from "../../batch/queue-budget.js";
import {
  checkQueueName,
  checkRunId,
  DEFAULT_QUEUE,
  newRunId,
  queueKeys,
  type WaitKeys,
} from "../../batch/queue-keys.js";
import { refusalText } from "../../batch/version-refusal.js";
import { dropWait } from "../../batch/wait-set.js";
import { findProjectRoot } from "../../definitions/discover.js";
import { openTracing } from "../../tracing/tracing.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { budgetFlag } from "../flags/session-flags.js";
import type { CliIo } from "../io.js";
import {
  interruptions,
  loadItems,
  progressBar,
  skippedLine,
  stopOnOutputFailure,
  summaryLine,
  usage,
} from "./batch-io.js";
import type { RunIo } from "./run-command.js";

/** `enqueue`'s options: its parser and its help's Options lines. */
export const ENQUEUE_OPTIONS = {
  redis: { type: "string", value: "URL", help: "the Redis that holds the queue (redis://host:port[/db])" },
  queue: { type: "string", value: "NAME", help: `the queue's name (default ${DEFAULT_QUEUE})` },
  "batch-id": {
    type: "string",
    value: "NAME",
    help: "the batch's name (default: FILE's name without .jsonl)",
  },
  "retry-failed": {
    type: "boolean",
    default: false,
    help: "queue again the items whose result is a failure (their runs continue)",
  },
  "max-budget-usd": {
    type: "string",
    value: "N",
    help: [
      "US dollars this run of the batch may spend, all its items together on",
      "every worker (kept in Redis): once reached, no item sends another request.",
      "Each enqueue is a run of its own, with its own budget; the run id is said",
    ],
  },
  resume: {
    type: "string",
    value: "RUN",
    help: "continue run RUN of the batch (its budget and what it spent) instead",
  },
  cwd: {
    type: "string",
    value: "DIR",
    help: "the folder the project is found from (default: the current folder)",
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const ENQUEUE_HELP = `Usage: agentmd enqueue FILE.jsonl --redis URL [options]

Puts the runs of a batch file (see 'agentmd batch --help'; - for standard input) on the
queue at URL, for 'agentmd worker's to take. Each job names the version of this project
(a hash of its inputs: agent.md, agents/, skills/, commands/, tools/, .claude/settings*.json,
.mcp.json and the CLAUDE.md files down to the item's cwd): a worker whose project differs
does not run it: it puts it back for a worker of that version (a rolling deploy). A job
is its item: id, prompt or line, agent, cwd and project version; a changed item is a job
of its own. Enqueuing again adds nothing twice: items that finished before with the same
prompt, agent and version are skipped (listed on standard error), jobs on the queue are
left alone, failed jobs are queued anew. Prints one JSON line:
{"batch", "run", "projectVersion", "added", "queued", "finished", "retried"}.

Options:
${optionsHelp(ENQUEUE_OPTIONS, 20)}

Example:
  agentmd enqueue reviews.jsonl --redis redis://queue.internal:6379

Exit status: 0 queued, 1 Redis cannot be reached, 2 bad usage or a bad line in FILE.`;

/** Runs `agentmd enqueue`; returns the exit code. */
export async function enqueueCommand(args: readonly string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseFlags(args, ENQUEUE_OPTIONS);
  if (values.help) {
    io.stdout.write(`${ENQUEUE_HELP}\n`);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    return usage(io, "enqueue", "give one batch file (FILE.jsonl, or - for standard input)");
  if (values.redis === undefined) return usage(io, "enqueue", "--redis URL is required");
  const items = await loadItems(file, io);
  if (!items) return 2;
  const batchId = batchIdOf(values["batch-id"] ?? (file === "-" ? "stdin" : path.basename(file)));
  const projectDir = findProjectRoot(path.resolve(io.cwd, values.cwd ?? "."));
  const retryFailed = values["retry-failed"];
  let maxBudgetUsd: number | undefined;
  let resume: string | undefined;
  try {
    maxBudgetUsd = budgetFlag(values["max-budget-usd"]);
    resume = values.resume === undefined ? undefined : checkRunId(values.resume);
  } catch (e) {
    items.close();
    return usage(io, "enqueue", (e as Error).message);
  }
  try {
    return await withQueue("enqueue", io, values.redis, values.queue, async (q) => {
      const e = await enqueue(
        q,
        { batchId, items, projectDir, retryFailed, ...(maxBudgetUsd !== undefined && { maxBudgetUsd }) },
        runOf({ ...(resume && { resume }) }),
        io.env,
      );
      const { projectVersion, run, added, queued, finished, retried } = e;
      io.stdout.write(
        `${JSON.stringify({ batch: batchId, run, projectVersion, added, queued, finished, retried })}\n`,
      );
      io.stderr.write(`${enqueuedLine(batchId, e, q.url)}\n`);
      return 0;
    });
  } finally {
    items.close();
  }
}

export interface QueueBatch {
  readonly redisUrl: string;
  readonly queue: string | undefined;
  readonly batchId: string;
  /** The batch file's items, read again as they are queued (never all held). */
  readonly items: ItemSource;
  readonly projectDir: string;
  readonly retryFailed: boolean;
  /** For all the items of this run of the batch together, on every worker (kept in Redis). */
  readonly maxBudgetUsd?: number;
  /** The run to continue (its budget); without, this is a new run. */
  readonly resume?: string;
}

/**
 * `agentmd batch --redis URL --wait`: enqueue, then collect every result as the workers finish.
 * Stops (exit 1) when the queue lost the batch's jobs (Redis restarted without its data): nothing
 * more would come for them.
 */
export async function queueBatch(o: QueueBatch, io: RunIo): Promise<number> {
  return withQueue("batch", io, o.redisUrl, o.queue, async (q) => {
    const events = new QueueEvents(q.name, { connection: bullConnection(o.redisUrl, true) });
    events.on("error", q.warn);
    const keys = queueKeys(q.name);
    const wait = keys.wait(o.batchId, randomUUID());
    try {
      await answered(events.waitUntilReady());
      const run = runOf(o);
      const from = await q.redis.llen(keys.batch(o.batchId, run).finished);
      const enqueued = await enqueue(q, o, run, io.env, wait);
      io.stderr.write(`${enqueuedLine(o.batchId, enqueued, q.url)}; waiting for the workers\n`);
      const stop = interruptions(io, "batch: no longer waiting; the runs go on on the workers");
      const output = stopOnOutputFailure(io, stop.signal);
      const bar = progressBar(io);
      let anyFailed = false;
      const started = Date.now();
      const collected = await collectResults({
        redis: q.redis,
        queue: q.queue,
        events,
        keys: keys.batch(o.batchId, run),
        wait,
        total: enqueued.total,
        from,
        idsAt: o.items.idsAt,
        signal: output.signal,
        onResult: (r) => {
          anyFailed ||= failed(r);
          bar.print(r);
        },
        onProgress: bar.draw,
        onRefused: (r) => bar.note(`batch ${o.batchId}: ${refusalText(r)}`),
        // The bar ends however the waiting does: no line of it after the error that stopped it.
      }).finally(() => bar.end());
      stop.dispose();
      output.dispose();
      const failure = output.failure();
      if (failure) {
        io.stderr.write(
          `agentmd batch: ${failure}; no longer waiting (the runs go on on the workers; run the same command again with --resume ${run}, with room to write, to collect every result)\n`,
        );
        return 1;
      }
      const { lost, lostIds, pending } = collected;
      if (lost > 0)
        io.stderr.write(
          `agentmd batch: the queue lost ${lost} job(s) of batch ${o.batchId} with no result (${lostIds.join(", ")}${lost > lostIds.length ? ", …" : ""}): Redis restarted without its data? Nothing more will come for them; run the same command again to queue them anew\n`,
        );
      const left =
        pending && !lost
          ? `, ${pending} still with the workers (run the same command again with --resume ${run} to collect them)`
          : pending
            ? `, ${pending} without a result`
            : "";
      io.stderr.write(`${summaryLine(o.batchId, collected.progress, Date.now() - started)}${left}\n`);
      if (lost > 0) return 1;
      if (pending) return 130;
      return anyFailed ? 1 : 0;
    } finally {
      await dropWait(q.redis, wait).catch(() => {});
      await closeBull(events);
    }
  });
}

interface OpenQueue {
  readonly name: string;
  readonly url: string;
  readonly redis: Redis;
  readonly queue: Queue;
  /** The error handler of every connection: one short line per kind of trouble. */
  readonly warn: (e: Error) => void;
}

/** Opens the queue and agentmd's connection, runs `body`, closes both; Redis errors are exit 1. */
async function withQueue(
  command: "enqueue" | "batch",
  io: RunIo,
  url: string,
  queueName: string | undefined,
  body: (q: OpenQueue) => Promise<number>,
): Promise<number> {
  let name: string;
  try {
    name = checkQueueName(queueName ?? DEFAULT_QUEUE);
  } catch (e) {
    return usage(io, command, (e as Error).message);
  }
  const warn = connectionWarnings((line) => io.stderr.write(`agentmd ${command}: ${line}\n`));
  let redis: Redis;
  try {
    redis = await connectRedis(url, warn);
  } catch (e) {
    if (!(e instanceof RedisUnavailableError)) throw e;
    io.stderr.write(`agentmd: ${e.message}\n`);
    return 1;
  }
  const queue = new Queue(name, { connection: bullConnection(url) });
  queue.on("error", warn);
  try {
    return await body({ name, url, redis, queue, warn });
  } catch (e) {
    // A server that stops answering, or refuses a write, mid-command: one line, exit 1.
    const failure = redisFailure(e, url);
    if (!failure) throw e;
    io.stderr.write(`agentmd ${command}: ${failure.message}\n`);
    return 1;
  } finally {
    await closeBull(queue);
    await redis.quit().catch(() => redis.disconnect());
  }
}

type ToEnqueue = Pick<QueueBatch, "batchId" | "items" | "projectDir" | "retryFailed" | "maxBudgetUsd">;

/**
 * The run of the batch an enqueue is: each is a new one, with a budget and results of its own
 * (last week's spending and answers are not this week's); `--resume RUN` continues one.
 */
const runOf = (o: { readonly resume?: string }) => o.resume ?? newRunId();

/**
 * The items on the queue. With tracing on, the enqueuing is a span and every job carries its
 * context, so that the runs of the batch, wherever they run, are one trace under it; without, a
 * `TRACEPARENT` agentmd was started in is carried as it is.
 */
async function enqueue(q: OpenQueue, o: ToEnqueue, run: string, env: CliIo["env"], wait?: WaitKeys) {
  const versionOf = projectVersions(o.projectDir);
  const version = versionOf();
  const { tracing } = await openTracing(env);
  const span = tracing?.span(`enqueue ${o.batchId}`, {
    "messaging.system": "bullmq",
    "messaging.destination.name": q.name,
    "agentmd.batch.id": o.batchId,
    "agentmd.batch.items": o.items.count,
  });
  const traceparent = span ? span.traceparent : env.TRACEPARENT;
  try {
    // The cap is there before any job: a worker reads it before the job's first request.
    await setQueueBudget(q.redis, queueKeys(q.name).budget(o.batchId, run), o.maxBudgetUsd);
    const enqueued = await enqueueItems({
      redis: q.redis,
      queue: q.queue,
      keys: queueKeys(q.name).batch(o.batchId, run),
      batchId: o.batchId,
      items: o.items.items(),
      versionOf: (item) => versionOf(item.cwd),
      retryFailed: o.retryFailed,
      run,
      ...(traceparent && { traceparent }),
      ...(wait && { wait }),
    });
    return { projectVersion: version, run, ...enqueued };
  } finally {
    span?.end();
    await tracing?.shutdown();
  }
}

/** What was queued, and (on a line of its own) which items were skipped, and why. */
function enqueuedLine(
  batchId: string,
  e: Enqueued & { projectVersion: string; run: string },
  url: string,
): string {
  const retried = e.retried ? `, ${e.retried} failed queued again` : "";
  const line = `batch ${batchId} run ${e.run} (its budget and results; --resume ${e.run} continues it): ${e.added} queued${retried}, ${e.queued} already on the queue, ${e.finished} finished before · project version ${e.projectVersion} · ${shownUrl(url)}`;
  const skipped = { count: e.finished, sample: e.finishedSample };
  return e.finished > 0 ? `${skippedLine(batchId, skipped)}\n${line}` : line;
}
