#!/usr/bin/env node
import { killLiveMcpServers, killLiveProcessGroups, main } from "../dist/cli/main.js";

// A reader that stops early (`agentmd … | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

// However agentmd ends, no command it started outlives it.
process.on("exit", killLiveProcessGroups);
process.on("exit", killLiveMcpServers);
for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.on(signal, () => process.exit(code));
}

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  onInterrupt: (handler) => {
    process.on("SIGINT", handler);
    return () => process.off("SIGINT", handler);
  },
});
