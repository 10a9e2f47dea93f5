import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";

/**
 * A real redis-server (Debian's package) of the test's own: a free loopback port, a temp folder,
 * nothing saved to disk. Absent outside CI, the tests that need it are skipped, loudly; in CI
 * (`CI` set) its absence fails them.
 */
export const hasRedis = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

if (!hasRedis) {
  const message =
    "redis-server is not on PATH: the queue tests need it (apt-get install redis-server; .ci/run installs it)";
  if (process.env.CI) throw new Error(`${message}. In CI this is a failure.`);
  console.warn(`\n!!! ${message}. They are SKIPPED. !!!\n`);
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** A client of the test's own (closed by stop()). */
  readonly client: Redis;
  /** Kills the server (SIGKILL) and starts a new, empty one on the same port. */
  restart(): Promise<void>;
  /** Stops the server (SIGSTOP): it still accepts connections, and answers nothing. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT); nothing when it is not paused. */
  resume(): void;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-redis-"));
  const port = await freePort();
  const spawnServer = async () => {
    const c = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    await ready(c);
    return c;
  };
  const kill = async (c: ChildProcess, signal: NodeJS.Signals) => {
    const exited = new Promise((resolve) => c.once("exit", resolve));
    c.kill(signal);
    await exited;
  };
  let child = await spawnServer();
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: null });
  // The test's own client reconnects after a restart; what it saw meanwhile is no test's concern.
  client.on("error", () => {});
  await client.ping();
  return {
    url,
    port,
    client,
    restart: async () => {
      await kill(child, "SIGKILL");
      child = await spawnServer();
    },
    pause: () => {
      child.kill("SIGSTOP");
    },
    resume: () => {
      child.kill("SIGCONT");
    },
    stop: async () => {
      child.kill("SIGCONT");
      client.disconnect();
      await kill(child, "SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves when the server says it accepts connections; rejects if it exits first. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}
