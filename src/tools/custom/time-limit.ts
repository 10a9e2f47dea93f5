import { DEFAULT_CUSTOM_TOOL_TIMEOUT_MS } from "../../shared/defaults.js";
import type { Tool, ToolResult } from "../types.js";

/**
 * A custom tool whose calls end within its time limit (`timeoutMs`, else the default): a call still
 * running then has its signal aborted and is answered, naming the tool and the limit, and the run
 * goes on. A promise that can never settle is one call's error, never a process that stops with
 * nothing left to run.
 */
export function withTimeLimit(tool: Tool): Tool {
  const limitMs =
    typeof tool.timeoutMs === "number" && tool.timeoutMs > 0
      ? tool.timeoutMs
      : DEFAULT_CUSTOM_TOOL_TIMEOUT_MS;
  return {
    ...tool,
    execute: async (input, ctx) => {
      const call = new AbortController();
      const stop = () => call.abort(ctx.signal.reason);
      ctx.signal.addEventListener("abort", stop, { once: true });
      if (ctx.signal.aborted) stop();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<ToolResult>((resolve) => {
        timer = setTimeout(() => {
          call.abort(new Error("timed out"));
          resolve({
            content: `${tool.name} did not answer within ${limitMs / 1000} s (its time limit, \`timeoutMs\` in its definition), so the call was abandoned; what it did is unknown.`,
            isError: true,
          });
        }, limitMs);
      });
      try {
        return await Promise.race([tool.execute(input, { ...ctx, signal: call.signal }), late]);
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", stop);
      }
    },
  };
}
