import { Redis } from "ioredis";
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
 * A connection for agentmd's own keys. The first connection fails fast with a message that names
 * the URL (a worker that cannot start should say why, not retry in silence); once connected, it
 * reconnects after a failure as long as it takes, keeping commands queued meanwhile.
 */
export async function connectRedis(url: string, onError?: (e: Error) => void): Promise<Redis> {
  checkRedisUrl(url);
  let ready = false;
  let failure = "";
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
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
    await redis.connect();
    ready = true;
  } catch (e) {
    redis.disconnect();
    throw new RedisUnavailableError(
      `cannot reach Redis at ${shownUrl(url)}: ${failure || (e as Error).message}`,
    );
  }
  return redis;
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

/** What BullMQ is given to open its own connections (a worker's blocking one among them). */
export const bullConnection = (url: string) => ({ url, maxRetriesPerRequest: null });

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
