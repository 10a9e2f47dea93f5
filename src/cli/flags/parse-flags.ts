import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "../../shared/did-you-mean.js";
import { UsageError } from "./usage-error.js";

/**
 * A command's flags and positionals, strictly: an unknown flag is a usage error that names the
 * nearest known one (`--allowed-tool` → `--allowed-tools`).
 */
type Options = NonNullable<ParseArgsConfig["options"]>;

export function parseFlags<const O extends Options>(
  args: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const flag = /'([^']+)'/.exec((e as Error).message)?.[1] ?? "";
      // --version and --help are asked for anywhere: a misspelling of them is named too.
      const known = [
        ...Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]),
        "--version",
        "--help",
      ];
      // `agentmd check --version`: the version (and the overall help) is agentmd's, asked before any command.
      if (!Object.hasOwn(options, flag.slice(2)) && (flag === "--version" || flag === "--help")) {
        throw new UsageError(
          `'${flag}' is not an option of this command; for agentmd's own: agentmd ${flag}`,
        );
      }
      const near = flag.startsWith("--") ? didYouMean(flag, known) : undefined;
      throw new UsageError(`unknown option '${flag}'${near ? `; did you mean '${near}'?` : ""}`);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw new UsageError((e as Error).message);
    throw e;
  }
}
