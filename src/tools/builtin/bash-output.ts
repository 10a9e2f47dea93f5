import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";

const schema = {
  type: "object",
  properties: {
    bash_id: { type: "string", description: "The id Bash gave the background command (bash_1, …)." },
    filter: {
      type: "string",
      description:
        "A regular expression (JavaScript syntax): only the new lines that match are shown; the others are dropped.",
    },
  },
  required: ["bash_id"],
} as const;

/** Lines that say the output was cut or not text: shown whatever the filter. */
const NOTE = /^\[(output cut at|binary output, )/;

/**
 * BashOutput: what a background command of this run wrote since the last BashOutput for it, and
 * whether it is still running. Judged by name only; it reads only the run's own commands.
 */
export function createBashOutputTool(): Tool {
  return defineTool<typeof schema>({
    name: "BashOutput",
    description:
      "Returns the output a background command (started with Bash run_in_background) wrote since the last BashOutput for it, and its status: running, or how it ended. filter keeps only the lines matching a regular expression.",
    inputSchema: schema,
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      let re: RegExp | undefined;
      if (input.filter !== undefined) {
        try {
          re = new RegExp(input.filter);
        } catch (e) {
          return fail(`Invalid filter: ${(e as Error).message}.`);
        }
      }
      const reading = ctx.shells?.read(input.bash_id);
      if (!reading) return fail(`No background command '${input.bash_id}' in this run.`);
      const lines = reading.output === "" ? [] : reading.output.replace(/\n$/, "").split("\n");
      const shown = re ? lines.filter((l) => NOTE.test(l) || (re as RegExp).test(l)) : lines;
      const body = shown.length > 0 ? shown.join("\n") : "(no new output)";
      return ok(`[${input.bash_id}: ${reading.status}]\n${body}`);
    },
  });
}
