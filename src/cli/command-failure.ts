import { UsageError } from "./flags/usage-error.js";
import type { CliIo } from "./io.js";
import { printable } from "./terminal/printable.js";

/**
 * What a command that threw says and the exit code it ends with: a usage error is one line and 2,
 * anything else an internal error and 1. The one place main() and the check entry share.
 */
export function commandFailure(e: unknown, io: Pick<CliIo, "stderr">): number {
  if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    io.stderr.write(`agentmd: ${printable((e as Error).message)}\nRun 'agentmd --help' for usage.\n`);
    return 2;
  }
  io.stderr.write(`agentmd: internal error: ${printable((e as Error).stack ?? String(e))}\n`);
  return 1;
}
