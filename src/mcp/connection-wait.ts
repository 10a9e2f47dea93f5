import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerListing } from "./listing.js";

export type Started =
  | { ok: true; listing: ServerListing }
  | { ok: false; message: string /** the caller's signal ended the wait */; interrupted?: true };

/** A start, or the run's interruption of the wait for it, whichever comes first. */
export function orInterrupted(
  starting: Promise<Started>,
  signal: AbortSignal,
  name: string,
): Promise<Started> {
  const interrupted: Started = {
    ok: false,
    interrupted: true,
    message: `the run was interrupted while MCP server '${name}' was starting`,
  };
  if (signal.aborted) return Promise.resolve(interrupted);
  return new Promise((resolve) => {
    const onAbort = () => resolve(interrupted);
    signal.addEventListener("abort", onAbort, { once: true });
    void starting.then((started) => {
      signal.removeEventListener("abort", onAbort);
      resolve(started);
    });
  });
}

/** SIGTERM to a stdio server's process (nothing for the HTTP transports). */
export function stopProcess(transport: Transport): void {
  const pid = (transport as { pid?: number | null }).pid;
  if (typeof pid !== "number") return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
}
