import path from "node:path";
import { RedisUnavailableError, shownUrl } from "../../batch/connect-redis.js";
import { checkQueueName, DEFAULT_QUEUE } from "../../batch/queue-keys.js";
import { findProjectRoot } from "../../definitions/discover.js";
import { sessionsDir } from "../../loop/transcript.js";
import type { QueueView } from "../../view/queue-view.js";
import { startViewServer } from "../../view/view-server.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { parseFlags } from "../flags/parse-flags.js";
import { usage } from "./batch-io.js";
import type { RunIo } from "./run-command.js";

/** `view`'s options: its parser and its help's Options lines. */
export const VIEW_OPTIONS = {
  port: { type: "string", value: "N", help: "the port (default 0: a free one)" },
  redis: { type: "string", value: "URL", help: "the Redis that holds a queue (redis://host:port[/db])" },
  queue: { type: "string", value: "NAME", help: `the queue's name (default ${DEFAULT_QUEUE})` },
  cwd: {
    type: "string",
    value: "DIR",
    help: "the folder the project is found from (default: the current folder)",
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const VIEW_HELP = `Usage: agentmd view [--port N] [--redis URL [--queue NAME]] [--cwd DIR]

Serves a page on http://127.0.0.1 (this machine only; nothing is sent anywhere) that
shows the project's sessions, each as the tree of its hops (main agent, subagents,
skills) with every tool call's input, decision, the rule that decided it (file:line),
result, time and cost, and the denials, compactions and retries. With --redis, the
queue's batches too: each item's state, turns and cost, and its session. A running
session or batch updates as it goes. Prints the page's address; Ctrl-C stops.

Options:
${optionsHelp(VIEW_OPTIONS, 18)}

Example:
  agentmd view --redis redis://127.0.0.1:6379

Exit status: 0 stopped by Ctrl-C, 1 it could not start (port taken, Redis unreachable),
2 bad usage.`;

/** Runs `agentmd view` until Ctrl-C (or SIGTERM); returns the exit code. */
export async function viewCommand(args: readonly string[], io: RunIo): Promise<number> {
  const { values, positionals } = parseFlags(args, VIEW_OPTIONS);
  if (values.help) {
    io.stdout.write(`${VIEW_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) return usage(io, "view", `unexpected argument '${positionals[0]}'`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return usage(io, "view", "--port must be a whole number from 0 to 65535");
  if (values.queue !== undefined && values.redis === undefined)
    return usage(io, "view", "--queue needs --redis URL");
  let queueName: string;
  try {
    queueName = checkQueueName(values.queue ?? DEFAULT_QUEUE);
  } catch (e) {
    return usage(io, "view", (e as Error).message);
  }
  const project = findProjectRoot(path.resolve(io.cwd, values.cwd ?? "."), io.env.HOME);
  const dir = sessionsDir(project);
  let queue: QueueView | undefined;
  try {
    if (values.redis !== undefined)
      // The queue's client (bullmq) is loaded only when a queue is shown.
      queue = await (await import("../../view/queue-view.js")).openQueueView(
        values.redis,
        queueName,
        dir,
        (m) => io.stderr.write(`agentmd view: ${m}\n`),
      );
  } catch (e) {
    if (e instanceof RedisUnavailableError) {
      io.stderr.write(`agentmd view: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  let server: Awaited<ReturnType<typeof startViewServer>>;
  try {
    server = await startViewServer({ port, sessionsDir: dir, project, ...(queue && { queue }) });
  } catch (e) {
    await queue?.close();
    io.stderr.write(`agentmd view: cannot listen on 127.0.0.1:${port}: ${(e as Error).message}\n`);
    return 1;
  }
  const what = queue ? ` and the batches of queue ${queueName} on ${shownUrl(values.redis ?? "")}` : "";
  io.stdout.write(`${server.url}\n`);
  io.stderr.write(`agentmd view: the sessions of ${project}${what} at ${server.url} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    io.onInterrupt?.(() => resolve());
  });
  await server.close();
  await queue?.close();
  return 0;
}
