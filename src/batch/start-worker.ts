import { hostname } from "node:os";
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import { openProject, type ProjectTrust } from "../invocation/open-project.js";
import type { Runner } from "../invocation/runner.js";
import { fileTranscripts } from "../loop/transcript.js";
import type { BatchResult } from "./batch-result.js";
import { batchSessionId } from "./batch-session-id.js";
import {
  answered,
  bullConnection,
  closeBull,
  connectionWarnings,
  connectRedis,
  RedisUnavailableError,
  shownUrl,
  watchRedis,
} from "./connect-redis.js";
import { jobDataOf } from "./job-data.js";
import { watchLocks } from "./lock-watch.js";
import { projectVersions } from "./project-version.js";
import { type QueueBudgets, queueBudgets } from "./queue-budget.js";
import { queueKeys } from "./queue-keys.js";
import { BATCH_MAX_RETRIES, createRateGate } from "./rate-gate.js";
import { createRateLimit, type PerMinute } from "./rate-limit.js";
import { type DurableTranscripts, redisTranscripts } from "./redis-transcripts.js";
import { recordResult } from "./results-store.js";
import { runItem } from "./run-item.js";
import { type RunnersByFolder, runnersByFolder } from "./runners-by-folder.js";
import { REFUSED_DELAY_MS, refusalOf, refusalText } from "./version-refusal.js";

export interface StartWorkerOptions {
  readonly redisUrl: string;
  readonly queue: string;
  /** Runs at once (their requests wait for the queue's rate limit). */
  readonly concurrency: number;
  /**
   * Limits per minute given (`--rpm`, `--tpm`) for the rate limit every worker of the queue shares
   * in Redis; the others are learnt from the API's headers.
   */
  readonly perMinute?: PerMinute;
  /** The project the definitions come from; a job made for another version is refused. */
  readonly projectDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether the project's code runs (a folder not trusted runs restricted). */
  readonly trust: ProjectTrust;
  /**
   * How long a job stays with a worker that stops answering (killed, cut off): then it goes back
   * to the queue, and another worker continues it from its transcript.
   */
  readonly lockDurationMs: number;
  /** How long a job made for another project version is put back for (default 2 s). */
  readonly refusedDelayMs?: number;
  /** Keep transcripts in this (shared) folder instead of in Redis. */
  readonly transcriptsDir?: string;
  /** What of the project's `tools/` did not load (the other tools are offered). */
  readonly onToolDiagnostic?: (message: string) => void;
  /** Each run finished and recorded by this worker. */
  readonly onResult?: (result: BatchResult) => void;
  /** What a person watching the worker should know (a refused job, a Redis error). */
  readonly onNotice?: (message: string) => void;
}

export interface RunningWorker {
  readonly name: string;
  /** The project's version at its own folder (a job in a subfolder also counts that folder's memory). */
  readonly version: string;
  /**
   * Takes no new job, waits for the running ones, stops what they started (MCP servers), then
   * disconnects. Contract: idempotent.
   */
  close(): Promise<void>;
}

/**
 * A worker: takes jobs from the queue, runs each through the public runner in its own session
 * (continuing it when an earlier worker was cut off), records the result once, and renews the job's
 * lock while it runs. Throws `ConfigError` (no API key, a broken agent.md) or
 * `RedisUnavailableError` before it takes any job.
 */
export async function startWorker(o: StartWorkerOptions): Promise<RunningWorker> {
  const name = `${hostname()}:${process.pid}`;
  const versionOf = projectVersions(o.projectDir);
  const version = versionOf();
  const keys = queueKeys(o.queue);
  const warn = connectionWarnings((line) => o.onNotice?.(line));
  const redis = await connectRedis(o.redisUrl, warn);
  const transcripts: DurableTranscripts = o.transcriptsDir
    ? sharedFolder(o.transcriptsDir)
    : redisTranscripts(redis, keys.transcript);
  const gate = createRateGate({
    max: o.concurrency,
    rateLimit: createRateLimit({
      redis: { client: redis, prefix: keys.rate },
      ...(o.perMinute && { given: o.perMinute }),
    }),
  });
  // Write-ahead: whatever the model is about to be told is in the transcript first, so a worker
  // killed during a request leaves a session the next worker continues rather than restarts. It
  // is waited for before the request takes its place, so that it leaves at its place, not a
  // round trip later (late requests bunch up in the API's seconds).
  const gated = gate.wrap();
  const fetch: typeof globalThis.fetch = async (input, init) => {
    await transcripts.flushed();
    return gated(input, init);
  };
  const project = await openProject(o.projectDir, o.trust);
  for (const d of project.diagnostics)
    if (d.severity !== "info") o.onToolDiagnostic?.(`${d.file}: ${d.severity}: ${d.message} [${d.code}]`);
  const runners = runnersByFolder(project, {
    env: o.env,
    model: { fetch, maxRetries: BATCH_MAX_RETRIES },
    // Write-ahead for tool calls too: a call's tool waits for its `tool_run` to be stored (the
    // store's `flushed`), so a transcript Redis refused stops the run there, its call unrun.
    transcript: { store: transcripts, required: true },
  });
  try {
    runners.runnerFor({});
  } catch (e) {
    redis.disconnect();
    throw e;
  }

  const processor = jobProcessor({
    name,
    versionOf,
    refusedDelayMs: o.refusedDelayMs ?? REFUSED_DELAY_MS,
    ...(o.onNotice && { onNotice: o.onNotice }),
    runnerFor: runners.runnerFor,
    budgets: queueBudgets(redis, keys.budget, o.onNotice),
    transcripts,
    record: (batch, run, result) => recordResult(redis, keys.batch(batch, run), result),
    ...(o.onResult && { onResult: o.onResult }),
  });
  let locks: ReturnType<typeof watchLocks> | undefined;
  const watched = async (job: Job, token?: string, signal?: AbortSignal) => {
    if (job.id) locks?.track(job.id);
    try {
      return await processor(job, token, signal);
    } finally {
      if (job.id) locks?.untrack(job.id);
    }
  };
  const worker = new Worker(o.queue, watched, {
    connection: bullConnection(o.redisUrl, true),
    name,
    concurrency: o.concurrency,
    lockDuration: o.lockDurationMs,
    stalledInterval: Math.max(500, Math.round(o.lockDurationMs / 2)),
    // A job resumed from its transcript loses nothing by stalling again, but one that kills every
    // worker it lands on must stop somewhere.
    maxStalledCount: 10,
  });
  worker.on("error", warn);
  // A job whose lock could not be renewed may be running on another worker by now: stop ours, so
  // that one run of it goes on (its transcript says where), not two.
  locks = watchLocks(worker, o.lockDurationMs, (id) =>
    o.onNotice?.(`job ${id}: its lock was lost (Redis did not renew it); its run stops here`),
  );
  worker.on("failed", (job, e) => {
    if (e instanceof UnrecoverableError || e.name === "UnrecoverableError")
      o.onNotice?.(`job ${job?.id ?? "?"} failed: ${e.message}`);
  });
  try {
    await answered(worker.waitUntilReady());
  } catch (e) {
    await closeBull(worker);
    redis.disconnect();
    throw new RedisUnavailableError(`Redis at ${shownUrl(o.redisUrl)}: ${(e as Error).message}`);
  }
  // A server that stops answering (stopped, wedged) holds the worker's blocking reads without an
  // error: it is asked after, and each time it does not answer is a line.
  const unwatch = watchRedis(redis, o.redisUrl, (line) => o.onNotice?.(line));
  let closed: Promise<void> | undefined;
  const close = async () => {
    unwatch();
    locks?.stop();
    await worker.close();
    await runners.close();
    await transcripts.flushed();
    await redis.quit().catch(() => redis.disconnect());
  };
  return {
    name,
    version,
    close: () => {
      closed ??= close();
      return closed;
    },
  };
}

/**
 * Transcripts as files in a folder every worker sees. Each write is on disk when it returns; the
 * job's lock keeps a session to one worker, so the files' own lock (by process id, which means
 * nothing on another machine) is left out.
 */
function sharedFolder(dir: string): DurableTranscripts {
  const { lock: _byProcessId, ...files } = fileTranscripts(dir);
  return { ...files, flushed: async () => {} };
}

interface JobContext {
  readonly name: string;
  /** This worker's project version for a job's working folder. */
  readonly versionOf: (cwd?: string) => string;
  readonly refusedDelayMs: number;
  readonly onNotice?: (message: string) => void;
  readonly runnerFor: RunnersByFolder["runnerFor"];
  /** The budget of a job's batch, for all its items together (none without a cap). */
  readonly budgets: QueueBudgets;
  readonly transcripts: DurableTranscripts;
  /** Stores a result once; true when this call stored it. */
  readonly record: (batch: string, run: string | undefined, result: BatchResult) => Promise<boolean>;
  readonly onResult?: (result: BatchResult) => void;
}

/**
 * What a worker does with one job. A job made for another project version is put back (delayed,
 * its progress saying why) for a worker of that version: during a rolling deploy old and new
 * workers share the queue, and each runs only its own version's jobs. Throws `UnrecoverableError`
 * for a job no worker could run (bad data, a missing folder), and a plain error for an interrupted
 * run, which the job's next attempt continues.
 */
function jobProcessor(cx: JobContext) {
  const told = new Set<string>();
  return async (job: Job, token?: string, signal?: AbortSignal) => {
    const data = jobDataOf(job.data);
    if (typeof data === "string") throw new UnrecoverableError(data);
    let runner: Runner;
    try {
      runner = cx.runnerFor(data.item);
    } catch (e) {
      throw new UnrecoverableError(`refused by ${cx.name}: ${(e as Error).message}`);
    }
    const version = cx.versionOf(data.item.cwd);
    if (data.projectVersion !== version) {
      const refusal = { refusedBy: cx.name, jobVersion: data.projectVersion, workerVersion: version };
      if (!told.has(data.projectVersion)) {
        told.add(data.projectVersion);
        cx.onNotice?.(
          `${refusalText(refusal)} (this project's agent.md, agents/, skills/, commands/, tools/, .claude/settings*.json, .mcp.json or CLAUDE.md differ)`,
        );
      }
      await job.updateProgress(refusal);
      await job.moveToDelayed(Date.now() + cx.refusedDelayMs, token);
      throw new DelayedError();
    }
    if (refusalOf(job.progress)) await job.updateProgress({ takenBy: cx.name });
    const sessionId = job.id ?? batchSessionId(data.batch, data.item, data.projectVersion, data.run);
    const budget = await cx.budgets.budgetFor(data.batch, data.run);
    const run = await runItem(runner, cx.transcripts, data.item, sessionId, {
      ...(budget && { budget }),
      signal: signal ?? new AbortController().signal,
      ...(data.retryFailed && { retryFailed: true }),
      ...(data.traceparent && { traceparent: data.traceparent }),
    });
    if (run.kind === "interrupted")
      throw new Error("the run was interrupted; the job's next attempt continues it");
    // Its transcript stops where Redis last took a write: the next attempt goes on from there.
    if (run.kind === "unrecorded") {
      const why = `${run.result.message ?? "the run stopped"}; the job's next attempt continues it`;
      cx.onNotice?.(`job ${job.id ?? "?"} (${data.item.id}): ${why}`);
      throw new Error(why);
    }
    if (run.kind === "held") throw new Error(`${run.message}; the job's next attempt looks again`);
    await cx.transcripts.flushed();
    const result: BatchResult = { ...run.result, worker: cx.name };
    if (await cx.record(data.batch, data.run, result)) cx.onResult?.(result);
    return { outcome: result.outcome };
  };
}
