import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";

const schema = {
  type: "object",
  properties: {
    shell_id: { type: "string", description: "The id Bash gave the background command (bash_1, …)." },
  },
  required: ["shell_id"],
} as const;

/** KillShell: ends a background command of this run, its whole process group. Judged by name only. */
export function createKillShellTool(): Tool {
  return defineTool<typeof schema>({
    name: "KillShell",
    description: "Ends a background command started with Bash run_in_background (its whole process group).",
    inputSchema: schema,
    concurrency: "sequential",
    interrupt: "not-interruptible",
    async execute(input, ctx) {
      const id = input.shell_id;
      const outcome = ctx.shells ? await ctx.shells.kill(id) : { kind: "unknown" as const };
      if (outcome.kind === "unknown") return fail(`No background command '${id}' in this run.`);
      if (outcome.kind === "not-running")
        return fail(`${id} is not running (${outcome.status}); nothing to end.`);
      return ok(`Ended ${id}.`);
    },
  });
}
