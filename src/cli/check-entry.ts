// `agentmd check` on its own: main() dispatches to check() here, and the build also writes this
// module alone as dist/bundle/check.cjs (scripts/bundle.mjs), one CommonJS file that the launcher
// loads with a V8 code cache on a Node that has no compile cache for ES modules (Node 20).
import { commandFailure } from "./command-failure.js";
import { parseFlags } from "./flags/parse-flags.js";
import type { CliIo } from "./io.js";

/** `agentmd check ARGS…`: its flags, its help, its run; the exit code. */
export async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { CHECK_HELP, CHECK_OPTIONS, runCheck } = await import("./commands/check-command.js");
  const { values, positionals } = parseFlags(args, CHECK_OPTIONS);
  if (values.help) {
    io.stdout.write(`${CHECK_HELP}\n`);
    return 0;
  }
  return runCheck({ paths: positionals, json: values.json, strict: values.strict }, io);
}

/**
 * main() for a command line whose command is `check` (`check ARGS…`), as the launcher calls it:
 * never throws; a failure is said as main() says it.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await check(argv.slice(1), io);
  } catch (e) {
    return commandFailure(e, io);
  }
}
