import path from "node:path";
import { RedisUnavailableError, shownUrl } from "../../batch/connect-redis.js";
import { checkQueueName, DEFAULT_QUEUE } from "../../batch/queue-keys.js";
import { startWorker } from "../../batch/start-worker.js";
import { findProjectRoot } from "../../definitions/discover.js";
import { ConfigError } from "../../shared/errors.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { RATE_OPTIONS, rateFlags } from "../flags/rate-flags.js";
import { usage, wholeNumber } from "./batch-io.js";
import { restrictedWithNotice } from "./project-trust.js";
import type { RunIo } from "./run-command.js";

/** `worker`'s options: its parser and its help's Options lines. */
export const WORKER_OPTIONS = {
  redis: { type: "string", value: "URL", help: "the Redis that holds the queue (redis://host:port[/db])" },
  concurrency: { type: "string", value: "N", help: "runs at once (default 4)" },
  rpm: {
    ...RATE_OPTIONS.rpm,
    help: [
      "requests per minute all the queue's workers send together",
      "(default: learnt from the API's rate-limit headers)",
    ],
  },
  tpm: RATE_OPTIONS.tpm,
  queue: { type: "string", value: "NAME", help: `the queue's name (default ${DEFAULT_QUEUE})` },
  cwd: {
    type: "string",
    value: "DIR",
    help: "the folder the project is found from (default: the current folder)",
  },
  "lock-duration": {
    type: "string",
    value: "MS",
    help: [
      "how long a job stays with a worker that stopped answering before",
      "another takes it over (default 30000)",
    ],
  },
  transcripts: {
    type: "string",
    value: "DIR",
    help: ["keep transcripts in this folder (shared by every worker) instead", "of in Redis"],
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const WORKER_HELP = `Usage: agentmd worker --redis URL [options]

Takes runs from the queue at URL (put there by 'agentmd enqueue' or 'agentmd batch
--redis URL --wait') and runs them with this project's definitions, as many at once as
--concurrency allows. Every worker of the queue shares one rate limit, kept in Redis:
requests and tokens per minute, learnt from the API's rate-limit headers (or given by
--rpm/--tpm), and after a 429 every worker holds its requests until its retry-after.
A batch's --max-budget-usd is for all its items together, on every worker. Each run's
transcript is kept in Redis, appended event by event: a worker killed mid-run loses nothing, since its jobs go
back to the queue once their lock expires and the next worker continues them from there.
Results, usage and cost go to Redis. A job made for another version of the project is
put back on the queue for a worker of that version (a rolling deploy), said once. Prints one JSON line per run it finishes. Ctrl-C finishes the running runs and
stops; a second Ctrl-C stops at once (the runs are resumed by another worker).

Options:
${optionsHelp(WORKER_OPTIONS, 23)}

Example:
  ANTHROPIC_API_KEY=… agentmd worker --redis redis://queue.internal:6379 --concurrency 8

Exit status: 130 stopped by Ctrl-C (143 by SIGTERM), 1 it could not start (no API key,
Redis unreachable), 2 bad usage.`;

/**
 * Runs `agentmd worker` until Ctrl-C (or SIGTERM); returns the exit code. Stopping closes the
 * worker: the running runs finish, and the MCP servers its runs started stop with it.
 */
export async function workerCommand(args: readonly string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseFlags(args, WORKER_OPTIONS);
  if (values.help) {
    io.stdout.write(`${WORKER_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) return usage(io, "worker", `unexpected argument '${positionals[0]}'`);
  if (values.redis === undefined) return usage(io, "worker", "--redis URL is required");
  const concurrency = wholeNumber(values.concurrency, 4);
  if (concurrency === undefined)
    return usage(io, "worker", "--concurrency must be a whole number from 1 to 1000");
  const lockDurationMs = wholeNumber(values["lock-duration"], 30_000, 3_600_000);
  if (lockDurationMs === undefined || lockDurationMs < 1000)
    return usage(io, "worker", "--lock-duration must be a whole number of milliseconds, at least 1000");
  let queue: string;
  try {
    queue = checkQueueName(values.queue ?? DEFAULT_QUEUE);
  } catch (e) {
    return usage(io, "worker", (e as Error).message);
  }
  let perMinute: ReturnType<typeof rateFlags>;
  try {
    perMinute = rateFlags(values);
  } catch (e) {
    return usage(io, "worker", (e as Error).message);
  }
  const projectDir = findProjectRoot(path.resolve(io.cwd, values.cwd ?? "."), io.env.HOME);
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker({
      redisUrl: values.redis,
      queue,
      concurrency,
      perMinute,
      projectDir,
      env: io.env,
      trust: restrictedWithNotice(io),
      lockDurationMs,
      ...(values.transcripts !== undefined && { transcriptsDir: path.resolve(io.cwd, values.transcripts) }),
      onResult: (r) => io.stdout.write(`${JSON.stringify(r)}\n`),
      onNotice: (m) => io.stderr.write(`agentmd worker: ${m}\n`),
      onToolDiagnostic: (m) => io.stderr.write(`agentmd: ${m}\n`),
    });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof RedisUnavailableError) {
      io.stderr.write(`agentmd: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  io.stderr.write(
    `agentmd worker ${worker.name}: project ${projectDir} at version ${worker.version}, queue ${queue} on ${shownUrl(values.redis)}, ${concurrency} at once\n`,
  );
  await new Promise<void>((resolve) => {
    let count = 0;
    io.onInterrupt?.(() => {
      count++;
      if (count > 1) process.exit(130);
      io.stderr.write("\nagentmd worker: finishing the running runs (Ctrl-C again to stop at once)\n");
      resolve();
    });
  });
  await worker.close();
  return 130;
}
