#!/usr/bin/env node
import nodeModule from "node:module";

// Node's own modules are required, not imported: importing one (`import … from "node:fs"`) builds
// its module namespace, which loads everything the module exposes lazily (fs/promises, streams,
// readline), and `--version` must not pay for that.
const require = nodeModule.createRequire(import.meta.url);

// A reader that stops early (`agentmd … | head`) is not an error. Any other failure (a full
// disk) is one line and exit 1, unless the command listens itself (a batch stops its runs first).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    if (stream.listenerCount("error") > 1) return;
    const name = stream === process.stdout ? "standard output" : "standard error";
    try {
      process.stderr.write(`agentmd: cannot write to ${name}: ${e.message}\n`);
    } catch {
      // standard error is gone too: the exit status says it
    }
    process.exit(1);
  });
}

// `--version` and `--help` print their text and load nothing else: not the CLI, not the cache.
const { quickAnswer } = await import("../dist/bundle/help.mjs");
const quick = quickAnswer(process.argv.slice(2));
if (quick !== undefined) process.stdout.write(quick);
else await runCommand();

/** Every other command: the CLI, with the process set up around it. */
async function runCommand() {
  // The bundle is imported after this, not statically, for the compile cache to apply to it.
  enableCompileCache();
  const { killLiveMcpServers, killLiveProcessGroups, main } = await import("../dist/bundle/cli.mjs");

  // The bash grammar is WebAssembly. V8 would recompile it in the background with its optimising
  // compiler, and a process that ends waits for that: 0.4-0.7 s at every exit. Its baseline code
  // reads a command line in microseconds; the flag is set before the grammar is first compiled.
  require("node:v8").setFlagsFromString("--liftoff-only");

  // However agentmd ends, no command it started outlives it.
  process.on("exit", killLiveProcessGroups);
  process.on("exit", killLiveMcpServers);
  // SIGTERM and SIGHUP stop a run as Ctrl-C does (its pending calls answered "interrupted", the
  // transcript closed, the result printed), then exit 143 or 129; a run that does not stop within
  // 5 s, a second signal, or a command with no run to stop, exits at once. Commands that start
  // nothing keep the default: a signal ends them at once, even mid-work.
  const interrupts = new Set();
  let signalled;
  const command = process.argv[2];
  if (!["check", "init", "sessions"].includes(command)) {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ]) {
      process.on(signal, () => {
        if (signalled !== undefined || interrupts.size === 0) process.exit(code);
        signalled = code;
        for (const handler of interrupts) handler();
        setTimeout(() => process.exit(code), 5000);
      });
    }
  }

  // A command whose work can never finish (a promise nothing will settle) must not end in silence.
  let finished = false;
  process.on("beforeExit", () => {
    if (finished) return;
    process.stderr.write(
      "agentmd: internal error: the command stopped before it finished (nothing was left that could finish it)\n",
    );
    process.exit(70);
  });

  process.exitCode = await main(process.argv.slice(2), {
    cwd: process.cwd(),
    env: { ...process.env, ...handedSecrets() },
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    onInterrupt: (handler) => {
      process.on("SIGINT", handler);
      interrupts.add(handler);
      return () => {
        process.off("SIGINT", handler);
        interrupts.delete(handler);
      };
    },
  });
  finished = true;
  // A command that has finished and said so exits, even if a connection it closed lingers (a Redis
  // client still reconnecting after a restart, say): its output is written (pipes and files are
  // written synchronously on Linux), so nothing is lost by not waiting for such a handle.
  setTimeout(() => process.exit(), 3000).unref();
  // An interrupted command ends once it has said so: a call it abandoned (a tool that ignored the
  // abort) must not hold the process.
  if (signalled !== undefined) process.exit(signalled);
  if (process.exitCode === 130) process.exit(130);
  // Otherwise it exits as soon as its output is out, rather than by tearing the process down piece
  // by piece (the heap, the shell grammar's WebAssembly memory, V8's background tasks), which a
  // program that starts agentmd once per query (the Agent SDK) waits for: tens of milliseconds at
  // every exit. Pipes on some systems are written asynchronously: what is still queued is written first.
  await Promise.all(
    [process.stdout, process.stderr]
      .filter((s) => s.writableLength > 0)
      .map((s) => new Promise((resolve) => s.once("drain", resolve))),
  );
  process.exit();
}

/**
 * The API key, when the `agentmd` launcher handed it over on a file descriptor (so that it is not
 * in this process's initial environment, which commands it starts could read). Kept in the
 * environment given to the CLI, never in process.env.
 */
function handedSecrets() {
  const fd = Number(process.env.AGENTMD_SECRETS_FD);
  delete process.env.AGENTMD_SECRETS_FD;
  if (!Number.isInteger(fd) || fd < 3) return {};
  const out = {};
  try {
    for (const line of require("node:fs").readFileSync(fd, "utf8").split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0 && line.slice(eq + 1) !== "") out[line.slice(0, eq)] = line.slice(eq + 1);
    }
    require("node:fs").closeSync(fd);
  } catch {
    // no secrets on that descriptor: the run says there is no key
  }
  return out;
}

/**
 * Node 22.1+ keeps the bytecode it compiled for the bundle, so that the next start skips compiling
 * it (Node 20 has no such cache). The cache is in the user's own cache folder: never in the
 * package's folder (which may be read-only), and never in a folder other users can write (what is
 * in it is code this process runs). NODE_COMPILE_CACHE, when set, is Node's own choice and wins. A
 * folder that cannot be made or written leaves the cache off: start-up is slower, nothing fails.
 */
function enableCompileCache() {
  if (typeof nodeModule.enableCompileCache !== "function" || process.env.NODE_COMPILE_CACHE) return;
  try {
    nodeModule.enableCompileCache(require("node:path").join(userCacheDir(), "agentmd", "compile-cache"));
  } catch {
    // no home folder, or none agentmd may write in: no cache
  }
}

/** The folder the platform keeps a user's caches in. */
function userCacheDir() {
  const { homedir } = require("node:os");
  const { isAbsolute, join } = require("node:path");
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return xdg;
  if (process.platform === "darwin") return join(homedir(), "Library", "Caches");
  if (process.platform === "win32" && process.env.LOCALAPPDATA) return process.env.LOCALAPPDATA;
  return join(homedir(), ".cache");
}
