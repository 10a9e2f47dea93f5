import type { Redis } from "ioredis";
import { RedisUnavailableError } from "../shared/errors.js";

export { RedisUnavailableError };

/** `redis://host:port[/db]` or `rediss://…`; throws `RedisUnavailableError` for anything else. */
export function checkRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RedisUnavailableError(`'${url}' is not a URL such as redis://127.0.0.1:6379`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new RedisUnavailableError(`'${url}' is not a redis:// or rediss:// URL`);
  return url;
}

/** The URL without its password, for messages. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * How long Redis may take to answer one command (or to become ready) before it fails: a server
 * that accepts connections and never answers (stopped, swapped out, wedged) is an error within
 * this, never a wait for ever. `AGENTMD_REDIS_TIMEOUT_MS` changes it (1,000 to 600,000).
 */
export function redisAnswerMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const n = Number(env.AGENTMD_REDIS_TIMEOUT_MS);
  return Number.isInteger(n) && n >= 1_000 && n <= 600_000 ? n : 5_000;
}

/** The message of an ioredis command that got no answer in time. */
const TIMED_OUT = "Command timed out";

/**
 * A failure of Redis itself, as ioredis gives it: no answer in time, a closed connection, a reply
 * error (a full server refusing writes). Said as one line; anything else is not Redis's.
 */
export function redisFailure(e: unknown, url: string): RedisUnavailableError | undefined {
  if (e instanceof RedisUnavailableError) return e;
  if (!(e instanceof Error)) return undefined;
  const shown = shownUrl(url);
  if (e.message === TIMED_OUT)
    return new RedisUnavailableError(`Redis at ${shown} did not answer within ${redisAnswerMs() / 1000} s`);
  if (e.name === "ReplyError" || /Connection is closed|max retries|ECONNREFUSED|ECONNRESET/.test(e.message))
    return new RedisUnavailableError(`Redis at ${shown}: ${e.message.split("\n")[0]}`);
  return undefined;
}

/**
 * A connection for agentmd's own keys. The first connection fails fast with a message that names
 * the URL (a worker that cannot start should say why, not retry in silence), as does a server that
 * accepts the connection and never answers; once connected, it reconnects after a failure as long
 * as it takes, and every command is bounded (`redisAnswerMs`): one that gets no answer in time
 * fails with "Command timed out" (see `redisFailure`).
 */
export async function connectRedis(url: string, onError?: (e: Error) => void): Promise<Redis> {
  checkRedisUrl(url);
  let ready = false;
  let failure = "";
  const ms = redisAnswerMs();
  // ioredis is loaded by the commands that connect, not by every command that imports this module.
  // As a CommonJS package imported from an ES module (and from the bundle), its class is `default`.
  const { default: RedisClient } = (await import("ioredis")) as unknown as { default: typeof Redis };
  const redis = new RedisClient(url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
    commandTimeout: ms,
    connectTimeout: ms,
    retryStrategy: (times) => (ready ? Math.min(times * 200, 2000) : null),
    // A connection that never opened has nothing to wait for when it is let go.
    disconnectTimeout: 200,
  });
  // Errors while reconnecting are retried; the commands waiting on them report what matters.
  redis.on("error", (e: Error) => {
    failure ||= e.message;
    if (ready) onError?.(e);
  });
  try {
    // The connection's ready check (INFO) is no command of ours: a server that never answers it
    // is bounded here.
    await answered(redis.connect(), ms);
    await redis.ping();
    ready = true;
  } catch (e) {
    // A server that never answers never closes its end either: the socket is cut, not ended, so
    // that nothing holds the process once it has said why.
    redis.stream?.destroy();
    redis.disconnect();
    const why = (e as Error).message === TIMED_OUT ? `no answer within ${ms / 1000} s` : "";
    throw new RedisUnavailableError(
      `cannot reach Redis at ${shownUrl(url)}: ${why || failure || (e as Error).message}`,
    );
  }
  return redis;
}

/** `p`, or "Command timed out" once `ms` have passed without it. */
export function answered<T>(p: Promise<T>, ms = redisAnswerMs()): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(TIMED_OUT)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The error handler every connection of a process gets (agentmd's own, BullMQ's queue, events and
 * worker): a connection without one makes a Redis restart print raw stack traces. Each kind of
 * trouble is said once, in one line; the connections reconnect by themselves meanwhile.
 */
export function connectionWarnings(warn: (line: string) => void): (e: Error) => void {
  const said = new Set<string>();
  return (e) => {
    const text = (e.message || e.name).split("\n")[0] ?? "";
    if (said.has(text)) return;
    said.add(text);
    warn(`Redis: ${text} (reconnecting)`);
  };
}

/**
 * What BullMQ is given to open its own connections. A queue's commands are bounded as agentmd's
 * own are; a worker's and a QueueEvents' are not (their blocking reads wait by design, and a
 * bound on every command would cut them): what they wait on is watched by `watchRedis`, and a
 * `batch --wait` by its own polls.
 */
export const bullConnection = (url: string, blocking = false) => ({
  url,
  maxRetriesPerRequest: null,
  ...(!blocking && { commandTimeout: redisAnswerMs() }),
});

/**
 * Asks Redis every `everyMs` whether it answers, and says each time it did not (a line per
 * failure: the worker goes on waiting for it), and once when it answers again. Returns the stop.
 */
export function watchRedis(
  redis: Redis,
  url: string,
  say: (line: string) => void,
  everyMs = redisAnswerMs(),
): () => void {
  let down = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    try {
      await redis.ping();
      if (down) say(`Redis at ${shownUrl(url)} answers again`);
      down = false;
    } catch (e) {
      down = true;
      if (!stopped) say(`${redisFailure(e, url)?.message ?? (e as Error).message} (retrying)`);
    }
    if (!stopped) timer = setTimeout(look, everyMs).unref();
  };
  timer = setTimeout(look, everyMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** What BullMQ's Queue, QueueEvents and Worker have in common for ending. */
export interface Closable {
  close(): Promise<void>;
  disconnect(): Promise<void>;
}

/** How long a BullMQ object's close may take before its connections are cut. */
const CLOSE_WITHIN_MS = 2_000;

/**
 * Closes a BullMQ object, and cuts its connections when that does not finish in time: right after
 * a Redis restart, QueueEvents' close can wait for ever on a blocking read that never comes back,
 * and a command that has said all it had to say must still exit. Never rejects.
 */
export async function closeBull(closable: Closable, ms = CLOSE_WITHIN_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    const how = await Promise.race([closable.close().then(() => "closed" as const), late]);
    // Not awaited: its disconnect first waits for the connection to be ready, which may never be.
    if (how === "late") void closable.disconnect().catch(() => {});
  } catch {
    void closable.disconnect().catch(() => {});
  } finally {
    clearTimeout(timer);
  }
}
