/**
 * The stdio servers alive in this process, so that none outlives agentmd however it ends (a second
 * Ctrl-C, SIGTERM): the CLI calls `killLiveMcpServers` on exit, as it does for Bash's commands.
 * Filled only while servers run; nothing happens at import time.
 */
const live = new Map<object, number>();

export function rememberLiveServer(pid: number, owner: object): void {
  live.set(owner, pid);
}

export function forgetLiveServer(owner: object): void {
  live.delete(owner);
}

/** SIGKILL to every stdio server still running. Synchronous, for `process.on("exit")`. */
export function killLiveMcpServers(): void {
  for (const pid of live.values()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** SIGTERM to a stdio server's process (nothing for the HTTP transports). */
export function stopProcess(transport: object): void {
  const pid = (transport as { pid?: number | null }).pid;
  if (typeof pid !== "number") return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
}
