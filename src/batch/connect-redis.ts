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
