import { homedir } from "node:os";
import type { ProjectTrust } from "../../invocation/open-project.js";
import { restrictedNotice } from "../../trust/describe-trust.js";
import type { CliIo } from "../io.js";
import { printable } from "../terminal/printable.js";

/**
 * The home folder whose `~/.agentmd/trust.json` holds the user's trust: that of the environment
 * agentmd was started with (a project's settings `env` never reaches it).
 */
export const trustHome = (io: CliIo): string => io.env.HOME || homedir();

/**
 * `run`, `-p`, `batch` and `worker`: a folder whose code is not trusted runs restricted, said once
 * on stderr with the code (or what changed in it) and how to trust it. Nothing is asked: these run
 * unattended as often as not.
 */
export function restrictedWithNotice(io: CliIo): ProjectTrust {
  return {
    home: trustHome(io),
    onUntrusted: (state) => {
      io.stderr.write(`${printable(restrictedNotice(state.code, state.changes))}\n`);
      return "restricted";
    },
  };
}

/**
 * Chat: on a terminal the user is asked once, at the start, with the code listed (yes trusts it
 * and goes on, anything else goes on restricted); off a terminal, as `run` does.
 */
export function askedOnTerminal(
  io: CliIo,
  ask: ((question: string) => Promise<string | undefined>) | undefined,
): ProjectTrust {
  if (!ask) return restrictedWithNotice(io);
  return {
    home: trustHome(io),
    onUntrusted: async (state) => {
      const listing = printable(restrictedNotice(state.code, state.changes)).split("\n").slice(0, -1);
      io.stdout.write(`${listing.join("\n")}\n`);
      const answer = await ask("Trust this folder and run its code? [y/N] ");
      if (answer !== undefined && /^\s*(y|yes)\s*$/i.test(answer)) return "trust";
      io.stdout.write(`agentmd: going on restricted: ${RESTRICTED_SHORT}\n`);
      return "restricted";
    },
  };
}

const RESTRICTED_SHORT =
  "the project's code does not run, its lists still bind; 'agentmd trust' lets it run next time";
