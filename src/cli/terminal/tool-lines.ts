import type { RunEvent } from "../../loop/events.js";
import type { ContentBlockParam } from "../../model/messages.js";
import type { Style } from "../io.js";
import { printable } from "./printable.js";
import { fitWidth, widthOf, wrapHanging } from "./width.js";

type ToolEnd = Extract<RunEvent, { type: "tool_end" }>;

/** How many lines of a command's output show under its tool line (more: the first 3 and a count). */
export const PREVIEW_LINES = 4;

/** A line as it is printed: wrapped to `width` when there is one (a terminal), else whole. */
export interface Layout {
  readonly style: Style;
  readonly width: number | undefined;
}

/**
 * A finished call as a person reads it: `⏺ Bash npm test → ok (5 ms)`; what it acted on is cut to
 * leave room for the verdict, and a denial's advice (what to write to allow the call) is wrapped
 * under it, whole. A successful Bash call shows the first lines of its output under the line.
 */
export function finishedLines(
  e: ToolEnd,
  summary: string,
  why: string,
  verdict: string,
  at: Layout,
): string[] {
  const { style, width } = at;
  const prefix = `${"  ".repeat(e.depth)}${style.cyan("⏺")} `;
  const ms = style.dim(`(${Math.round(e.ms)} ms)`);
  const tail = ` → ${verdict}`;
  const name = printable(e.name, false);
  let head = summary ? `${name} ${summary}` : name;
  if (width !== undefined) {
    // What the call acted on gives way to the verdict, never below a few words of its own.
    const room = width - widthOf(prefix) - widthOf(`${tail} ${ms}`);
    head = fitWidth(head, Math.max(room, Math.min(widthOf(head), 24)));
  }
  const body = `${head}${tail}${why} ${ms}`;
  const lines = width === undefined ? [`${prefix}${body}`] : wrapHanging(prefix, body, width);
  return [...lines, ...outputPreview(e, at)];
}

/** A call still running while later ones of its batch have finished: it keeps its place in the order. */
export function pendingLines(depth: number, name: string, summary: string, at: Layout): string[] {
  const prefix = `${"  ".repeat(depth)}${at.style.cyan("⏺")} `;
  const body = `${printable(name, false)}${summary ? ` ${summary}` : ""} ${at.style.dim("… running")}`;
  return [at.width === undefined ? `${prefix}${body}` : fitWidth(`${prefix}${body}`, at.width)];
}

/**
 * The first lines of a successful command's output, under its tool line as `⎿  …`, each cut to
 * the width; `… +N lines` says how many more there are. The `[exit code 0]` the model is told is
 * not repeated.
 */
export function outputPreview(e: ToolEnd, at: Layout): string[] {
  if (e.name !== "Bash" || e.decision !== "allowed" || e.isError) return [];
  const lines = e.content
    .replace(/\n?\[exit code 0\]$/, "")
    .replace(/\n+$/, "")
    .split("\n");
  if (lines.length === 1 && lines[0] === "") lines.splice(0, 1, at.style.dim("(no output)"));
  const shown = lines.length > PREVIEW_LINES ? lines.slice(0, PREVIEW_LINES - 1) : lines;
  const more = lines.length - shown.length;
  const indent = "  ".repeat(e.depth);
  const cut = (s: string) => (at.width === undefined ? s : fitWidth(s, at.width));
  return [
    ...shown.map((l, i) => cut(`${indent}  ${i === 0 ? at.style.dim("⎿") : " "}  ${printable(l, false)}`)),
    ...(more > 0 ? [`${indent}     ${at.style.dim(`… +${more} line${more === 1 ? "" : "s"}`)}`] : []),
  ];
}

interface Slot {
  readonly id: string;
  readonly depth: number;
  readonly name: string;
  readonly input: unknown;
  lines?: string[];
  printed: boolean;
  pendingShown: boolean;
}

/**
 * Tool lines in the order the model made the calls, whatever order parallel calls finish in. A
 * finished call's line waits for the lines of the calls before it, for `holdMs` at most: if an
 * earlier call still runs then, it gets a `… running` line in its place (so no slow call hides the
 * others), the finished lines after it follow, and its own line comes when it finishes. Calls the
 * order does not know (no response announced them, or one call alone) print when they finish.
 */
export function callOrder(
  print: (lines: string[]) => void,
  pending: (slot: { depth: number; name: string; input: unknown }) => string[],
  holdMs = HOLD_MS,
) {
  const batchOf = new Map<string, Batch>();
  const drain = (batch: Batch) => {
    for (const [i, slot] of batch.slots.entries()) {
      if (slot.printed) continue;
      if (slot.lines) {
        print(slot.lines);
        slot.printed = true;
        batchOf.delete(slot.id);
        continue;
      }
      if (!batch.slots.slice(i + 1).some((s) => s.lines && !s.printed)) break;
      if (!batch.released && holdMs > 0) {
        // The lines after a running call wait a moment: most parallel calls finish close together.
        batch.timer ??= setTimeout(() => {
          batch.released = true;
          drain(batch);
        }, holdMs).unref();
        return;
      }
      if (!slot.pendingShown) print(pending(slot));
      slot.pendingShown = true;
    }
    if (batch.slots.every((s) => s.printed)) clearTimeout(batch.timer);
  };
  return {
    /** A response's calls, in its order (its `message_end`). */
    announce(depth: number, content: readonly ContentBlockParam[]) {
      const slots: Slot[] = [];
      for (const b of content)
        if (b.type === "tool_use")
          slots.push({ id: b.id, depth, name: b.name, input: b.input, printed: false, pendingShown: false });
      if (slots.length < 2) return;
      const batch: Batch = { slots, released: false };
      for (const slot of slots) batchOf.set(slot.id, batch);
    },
    finished(id: string, lines: string[]) {
      const batch = batchOf.get(id);
      const slot = batch?.slots.find((s) => s.id === id);
      if (!batch || !slot) {
        print(lines);
        return;
      }
      slot.lines = lines;
      drain(batch);
    },
    /** Whatever is held is printed now (the run ends). */
    release() {
      for (const batch of new Set(batchOf.values())) {
        batch.released = true;
        drain(batch);
      }
    },
  };
}

interface Batch {
  readonly slots: Slot[];
  /** The hold is over: running calls get `… running` lines, finished ones print at once. */
  released: boolean;
  timer?: NodeJS.Timeout;
}

/** How long a finished call's line waits for the calls before it before they get `… running` lines. */
export const HOLD_MS = 400;
