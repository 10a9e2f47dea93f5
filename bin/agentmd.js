#!/usr/bin/env node
// The launcher is CommonJS (bin/package.json says so): Node starts it without setting up its ES
// module loader, which `--version`, `--help` and `check` (CommonJS files of their own) never need.
// Node's own modules are required where they are used, not at the top: `--version` must not pay
// for what it does not use.

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
// Only the first word asks for them: `check`, which a pre-commit hook runs, skips reading help.cjs.
const quick =
  process.argv[2] === "check"
    ? undefined
    : require("../dist/bundle/help.cjs").quickAnswer(process.argv.slice(2));
if (quick !== undefined) process.stdout.write(quick);
else runCommand();

/** Every other command: the CLI, with the process set up around it. */
async function runCommand() {
  const command = process.argv[2];
  // The bash grammar is WebAssembly. V8 would recompile it in the background with its optimising
  // compiler, and a process that ends waits for that: 0.4-0.7 s at every exit. Its baseline code
  // reads a command line in microseconds. The flag is set before anything is compiled: V8 keeps
  // compiled code for the flags it was compiled under, and a cache made under others is refused.
  require("node:v8").setFlagsFromString("--liftoff-only");
  // The bundle is imported after this, not statically, for the compile cache to apply to it.
  const compileCache = enableCompileCache();
  // `check` (a pre-commit hook's command) is one CommonJS file of its own; every other command the CLI.
  const cli = command === "check" ? loadCheck(compileCache) : await import("../dist/bundle/cli.mjs");
  const { killLiveMcpServers, killLiveProcessGroups, main } = cli;

  // However agentmd ends, no command it started outlives it (check starts none).
  if (killLiveProcessGroups) process.on("exit", killLiveProcessGroups);
  if (killLiveMcpServers) process.on("exit", killLiveMcpServers);
  // SIGTERM and SIGHUP stop a run as Ctrl-C does (its pending calls answered "interrupted", the
  // transcript closed, the result printed), then exit 143 or 129; a run that does not stop within
  // 5 s, a second signal, or a command with no run to stop, exits at once. Commands that start
  // nothing keep the default: a signal ends them at once, even mid-work.
  const interrupts = new Set();
  let signalled;
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
  cli.saveCodeCache?.();
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
  const nodeModule = require("node:module");
  if (typeof nodeModule.enableCompileCache !== "function") return false;
  if (process.env.NODE_COMPILE_CACHE) return true;
  try {
    nodeModule.enableCompileCache(require("node:path").join(userCacheDir(), "agentmd", "compile-cache"));
  } catch {
    // no home folder, or none agentmd may write in: no cache
  }
  return true;
}

/**
 * `agentmd check`, dist/bundle/check.cjs (src/cli/check-entry.ts alone): one file, no module to
 * resolve. Where Node has a compile cache (22.1+) it keeps the file's bytecode; Node 20 has none
 * for ES modules and is given one for this file: V8's code cache, kept in the user's cache folder.
 */
function loadCheck(compileCache) {
  const file = require("node:path").join(__dirname, "..", "dist", "bundle", "check.cjs");
  if (compileCache) return require(file);
  return requireWithCodeCache(file);
}

/**
 * Loads a CommonJS file as require() would, compiled with the V8 code cache kept for it under the
 * user's cache folder (agentmd/code-cache), and returns its exports and saveCodeCache(), which
 * keeps the code compiled so far when there was no usable cache: called once the command is done,
 * the cache holds the functions the command ran too. Written here rather than taken from a package
 * (v8-compile-cache): that one loads node:crypto to name its files, which start-up must not pay
 * for, and keeps them in the shared temporary folder, which other users can write in.
 *
 * A cache is used only for the same file (its path, size and time), the same Node, and the same
 * options (V8 keeps compiled code for the flags it was compiled under); its header says which, and a
 * cache whose header differs is compiled anew and replaced. V8 checks a cache's version, flags and,
 * with --verify-snapshot-checksum, its checksum: a damaged cache is refused (without the flag it
 * could crash the process) and replaced. A folder that cannot be made or written leaves the cache
 * off; nothing the cache does can fail the command.
 */
function requireWithCodeCache(file) {
  const fs = require("node:fs");
  const path = require("node:path");
  const nodeModule = require("node:module");
  const stat = fs.statSync(file);
  const key = `agentmd code cache 1\n${JSON.stringify([file, stat.size, stat.mtimeMs, process.version, process.arch, process.execArgv, process.env.NODE_OPTIONS ?? ""])}\n`;
  let blob;
  let cached;
  let state = "none";
  try {
    blob = path.join(userCacheDir(), "agentmd", "code-cache", `${path.basename(file)}-${fnv1a(file)}.bin`);
    cached = cachedCode(fs.readFileSync(blob), key);
    if (cached === undefined) state = "stale";
  } catch {
    // no cache yet, or no folder to keep one in
  }
  require("node:v8").setFlagsFromString("--verify-snapshot-checksum");
  const { Script } = require("node:vm");
  const script = new Script(nodeModule.wrap(fs.readFileSync(file, "utf8")), {
    filename: file,
    cachedData: cached,
  });
  const used = cached !== undefined && !script.cachedDataRejected;
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script
    .runInThisContext()
    .call(module.exports, module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  debugCodeCache(used ? "used" : cached === undefined ? state : "refused");
  const saveCodeCache = () => {
    if (used || blob === undefined) return;
    try {
      const data = script.createCachedData();
      fs.mkdirSync(path.dirname(blob), { recursive: true, mode: 0o700 });
      const temp = `${blob}.${process.pid}.tmp`;
      fs.writeFileSync(temp, Buffer.concat([Buffer.from(key), data]), { mode: 0o600 });
      fs.renameSync(temp, blob);
      debugCodeCache("written");
    } catch {
      // a folder agentmd may not write in: no cache
    }
  };
  return { ...module.exports, saveCodeCache };
}

/** The code in a cache file, when its header is `key`; undefined otherwise. */
function cachedCode(content, key) {
  const header = Buffer.from(key);
  if (content.length <= header.length || !content.subarray(0, header.length).equals(header)) return undefined;
  return content.subarray(header.length);
}

/** AGENTMD_DEBUG_CODE_CACHE=1: one line on standard error for what the code cache did. */
function debugCodeCache(what) {
  if (process.env.AGENTMD_DEBUG_CODE_CACHE) process.stderr.write(`agentmd: code cache: ${what}\n`);
}

/** A short name for a path (32-bit FNV-1a, in hex): the cache file's name, not its check. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
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
