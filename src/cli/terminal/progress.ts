import type { RunEvent } from "../../loop/events.js";
import type { CliIo, Style } from "../io.js";
import { printable } from "./printable.js";
import { columnsOf, fitWidth } from "./width.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 100;

export interface Progress {
  /** Where the run's text goes: through here, so the status line is cleared before it. */
  readonly out: { write(s: string): unknown };
  update(event: RunEvent): void;
  /** Clears the status line and stops its timer (a question, the end of a turn). */
  stop(): void;
  /** While held (a question is open), nothing is drawn, whatever the other calls do meanwhile. */
  hold(on: boolean): void;
}

/**
 * A one-line status under a run's output, on a terminal only: a spinner with the time elapsed
 * while the model is awaited and while tools run (with a long command's last line of output). It
 * is drawn only where a line starts, and erases only itself: text already printed is never
 * overwritten. Off a terminal, or with NO_COLOR or TERM=dumb, it does nothing.
 */
export function createProgress(
  stream: { write(s: string): unknown; isTTY?: boolean },
  style: Style,
  env: CliIo["env"],
): Progress {
  const on = stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
  if (!on) return { out: stream, update: () => {}, stop: () => {}, hold: () => {} };
  let held = false;
  let atLineStart = true;
  let drawn = false;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let waitingSince: number | undefined;
  const tools = new Map<string, { name: string; since: number; last?: string }>();
  const clear = () => {
    if (drawn) stream.write("\r\x1b[2K");
    drawn = false;
  };
  const status = (): string | undefined => {
    const now = performance.now();
    const secs = (since: number) => `${((now - since) / 1000).toFixed(1)} s`;
    if (tools.size > 0) {
      const list = [...tools.values()];
      const oldest = Math.min(...list.map((t) => t.since));
      const names = [...new Set(list.map((t) => t.name))].join(", ");
      const last = list.find((t) => t.last)?.last;
      return `running ${names} · ${secs(oldest)}${last ? ` · ${last}` : ""}`;
    }
    if (waitingSince !== undefined) return `waiting for the model · ${secs(waitingSince)}`;
    return undefined;
  };
  const draw = () => {
    const text = status();
    if (!text || !atLineStart || held) return;
    clear();
    // Measured in columns at each frame (wide characters count two; a resize is followed); one
    // column is kept free so that the cursor never wraps onto a line of its own.
    const width = Math.max(20, columnsOf(stream as { columns?: number }) - 1);
    stream.write(style.dim(fitWidth(`${FRAMES[frame++ % FRAMES.length]} ${text}`, width)));
    drawn = true;
  };
  const start = () => {
    if (timer) return;
    timer = setInterval(draw, TICK_MS);
    timer.unref();
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    clear();
  };
  return {
    out: {
      write(s: string) {
        clear();
        if (s.length > 0) atLineStart = s.endsWith("\n");
        return stream.write(s);
      },
    },
    update(e) {
      switch (e.type) {
        case "turn_start":
          waitingSince = performance.now();
          break;
        case "message_delta":
        case "message_end":
          waitingSince = undefined;
          break;
        case "tool_start":
          tools.set(e.id, { name: e.name, since: performance.now() });
          break;
        case "tool_end":
          tools.delete(e.id);
          break;
        case "run_end":
          if (e.depth === 0) {
            waitingSince = undefined;
            tools.clear();
          }
          break;
        case "tool_output": {
          const t = tools.get(e.id);
          if (t) t.last = printable(e.text, false);
          break;
        }
        default:
      }
      if (status()) {
        start();
        draw();
      } else stop();
    },
    stop,
    hold(h) {
      held = h;
      if (h) stop();
      else if (status()) start();
    },
  };
}
