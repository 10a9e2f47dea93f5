import type { RunEvent, RunResult } from "../../loop/events.js";
import type { Style } from "../io.js";
import type { markdownStream } from "./markdown.js";
import { printable } from "./printable.js";
import { callOrder, finishedLines, type Layout, pendingLines } from "./tool-lines.js";
import { columnsOf } from "./width.js";

export { printable };

export interface Out {
  write(s: string): unknown;
}

/** How the text renderer lays a run out on a terminal; nothing set: lines as they come (a pipe, a log). */
export interface RenderOptions {
  /** The terminal's width now: tool lines are fitted and wrapped to it. */
  readonly width?: () => number;
  /**
   * The model's text laid out as Markdown (with ANSI styles when `color`), a block at a time, by
   * `stream` (./markdown.ts, which `terminalRendering` loads only for a terminal: a pipe never pays
   * for the Markdown parser and the highlighter).
   */
  readonly markdown?: { readonly color: boolean; readonly stream: typeof markdownStream };
  /** The block being written shown as it streams, then replaced by its layout (a live terminal). */
  readonly preview?: boolean;
  /** How long a parallel call's line waits for the calls before it (default 400 ms; 0: not at all). */
  readonly holdMs?: number;
}

/**
 * On a terminal, the layout of one: its width (read at each line, so a resize is followed) and the
 * model's Markdown rendered (without colour under NO_COLOR). Off one, the text as the model wrote
 * it: Markdown is plain text already, and what reads a pipe wants it whole.
 */
export async function terminalRendering(
  stream: { isTTY?: boolean; columns?: number },
  env: Readonly<Record<string, string | undefined>>,
): Promise<RenderOptions> {
  if (!onTerminal(stream, env)) return {};
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  const { markdownStream } = await import("./markdown.js");
  return {
    width: () => columnsOf(stream),
    markdown: { color: !noColor, stream: markdownStream },
    preview: true,
  };
}

const onTerminal = (stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>) =>
  stream.isTTY === true && env.TERM !== "dumb";

/** The terminal's width now, or undefined off a terminal (where lines are not wrapped). */
export const terminalWidth = (
  stream: { isTTY?: boolean; columns?: number },
  env: Readonly<Record<string, string | undefined>>,
): number | undefined => (onTerminal(stream, env) ? columnsOf(stream) : undefined);

/**
 * Renders a run's events as a person reads them: the model's text as it streams, each tool call on
 * one line with its decision (in the order the calls were made), warnings and errors, and a
 * closing summary. Subagent events are indented by depth.
 */
export function createTextRenderer(out: Out, style: Style, options: RenderOptions = {}) {
  let atLineStart = true;
  const texts = new Map<string, ReturnType<typeof markdownStream>>();
  const flushText = (runId?: string) => {
    for (const [id, text] of texts) if (runId === undefined || id === runId) text.flush();
  };
  const line = (s: string) => {
    flushText();
    if (!atLineStart) out.write("\n");
    out.write(`${s}\n`);
    atLineStart = true;
  };
  const indent = (depth: number) => "  ".repeat(depth);
  const layout = (): Layout => ({ style, width: options.width?.() });
  const order = callOrder(
    (lines) => {
      for (const l of lines) line(l);
    },
    (slot) => pendingLines(slot.depth, slot.name, summariseInput(slot.input, inputRoom(layout())), layout()),
    options.holdMs,
  );
  const markdownOf = (runId: string, depth: number) => {
    const md = options.markdown;
    if (!md) return undefined;
    let text = texts.get(runId);
    if (!text) {
      text = md.stream(
        () => ({ width: (options.width?.() ?? 80) - indent(depth).length, color: md.color }),
        (l) => out.write(`${l === "" ? "" : indent(depth)}${l}\n`),
        options.preview ? { write: (s) => out.write(s), indent: indent(depth) } : undefined,
      );
      texts.set(runId, text);
    }
    return text;
  };
  const inputs = new Map<string, unknown>();
  return (e: RunEvent) => {
    switch (e.type) {
      case "tool_start":
        inputs.set(e.id, e.input);
        flushText(e.runId);
        // The line the model was writing ends here, so what is shown while the tool runs starts a line.
        if (!atLineStart) {
          out.write("\n");
          atLineStart = true;
        }
        break;
      case "message_delta": {
        const md = markdownOf(e.runId, e.depth);
        if (md) {
          md.push(e.text);
          break;
        }
        const lines = printable(e.text).split("\n");
        lines.forEach((segment, i) => {
          if (i > 0) {
            out.write("\n");
            atLineStart = true;
          }
          if (segment === "") return;
          if (atLineStart) out.write(indent(e.depth));
          out.write(segment);
          atLineStart = false;
        });
        break;
      }
      case "message_end":
        flushText(e.runId);
        order.announce(e.depth, e.content);
        break;
      case "tool_end": {
        const verdict =
          e.decision === "allowed"
            ? e.isError
              ? style.yellow("error")
              : style.dim("ok")
            : style.red(e.decision === "denied" ? "denied" : e.decision);
        // A denial's advice (what to write to allow the call) is shown whole; an error's first 160 characters.
        const why =
          e.decision === "allowed" && !e.isError
            ? ""
            : `: ${printable(e.decision === "allowed" ? firstSentence(e.content) : e.content.replace(/\s+/g, " ").trim(), false)}`;
        const at = layout();
        const input = summariseInput(inputs.get(e.id), inputRoom(at));
        inputs.delete(e.id);
        order.finished(e.id, finishedLines(e, input, why, verdict, at));
        break;
      }
      case "server_tool": {
        const input = summariseInput(e.input);
        const said = printable(firstSentence(e.content), false);
        line(
          `${indent(e.depth)}${style.cyan("⏺")} ${printable(e.name, false)}${input ? ` ${input}` : ""} → ${e.isError ? style.yellow(said) : style.dim(said)}`,
        );
        break;
      }
      case "todos":
        line(`${indent(e.depth)}${style.cyan("⏺")} Todos`);
        for (const t of e.todos) {
          const text = printable(t.content, false);
          line(
            `${indent(e.depth)}  ${TODO_MARKS[t.status]} ${t.status === "completed" ? style.dim(text) : t.status === "in_progress" ? style.bold(text) : text}`,
          );
        }
        break;
      case "retry":
        line(
          `${indent(e.depth)}${style.dim(`retrying (${printable(e.reason, false)}), attempt ${e.attempt}${e.delayMs ? ` in ${Math.round(e.delayMs)} ms` : ""}`)}`,
        );
        break;
      case "warning":
        line(`${indent(e.depth)}${style.yellow("warning:")} ${printable(e.message, false)}`);
        break;
      case "limit":
        line(`${indent(e.depth)}${style.yellow("limit:")} ${printable(e.message, false)}`);
        break;
      case "refusal":
        line(`${indent(e.depth)}${style.yellow("refused:")} ${printable(e.message, false)}`);
        break;
      case "error":
        line(`${indent(e.depth)}${style.red("error:")} ${printable(e.message, false)}`);
        break;
      case "compaction":
        line(
          `${indent(e.depth)}${style.dim(`⎯ the conversation so far (${e.tokensBefore.toLocaleString("en-US")} tokens) is now a summary`)}`,
        );
        break;
      case "abort":
        // The loop's own abort says only that; one that ended a run before it began says why.
        line(
          `${indent(e.depth)}${style.yellow("aborted")}${e.message === "the run was aborted" ? "" : `: ${printable(e.message)}`}`,
        );
        break;
      case "run_start":
        if (e.depth > 0)
          line(
            `${indent(e.depth - 1)}${style.cyan("⎿")} ${printable(e.agent, false)} (${printable(e.model, false)}, ${e.tools.length} tools)`,
          );
        break;
      case "run_end":
        if (e.depth === 0) order.release();
        flushText(e.runId);
        texts.delete(e.runId);
        if (!atLineStart) {
          out.write("\n");
          atLineStart = true;
        }
        break;
      default:
        break;
    }
  };
}

const TODO_MARKS = { pending: "☐", in_progress: "◐", completed: "☑" } as const;

/** `done · 3 turns · 1,234 in / 456 out tokens (cache 0 read, 0 written) · $0.0123 · 2.3 s` */
export function summary(r: RunResult, ms: number, style: Style): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const u = r.usage;
  const parts = [
    r.outcome,
    `${r.turns} turn${r.turns === 1 ? "" : "s"}`,
    `${n(u.input_tokens)} in / ${n(u.output_tokens)} out tokens (cache ${n(u.cache_read_input_tokens)} read, ${n(u.cache_creation_input_tokens)} written)`,
    ...(u.server_tool_use
      ? [plural(u.server_tool_use.web_search_requests, "web search", "web searches")]
      : []),
    r.costUnknown ? "cost unknown (no price known for the model)" : `$${r.costUsd.toFixed(4)}`,
    `${(ms / 1000).toFixed(1)} s`,
  ];
  return style.dim(`— ${parts.join(" · ")}`);
}

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;

function firstSentence(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}...` : oneLine;
}

/** The field that names what a call acts on, in the order a person looks for it. */
const SUBJECT_KEYS = [
  "command",
  "file_path",
  "notebook_path",
  "path",
  "url",
  "pattern",
  "subagent_type",
  "skill",
  "query",
];

/**
 * `{"file_path":"README.md"}` → `README.md`; a call with several fields by what it acts on
 * (`npm test` for Bash with a description, `reviewer: check the diff` for Task, `TODO in src` for a
 * search), never raw JSON
 * when such a field is there.
 */
export function summariseInput(input: unknown, max = 80): string {
  if (typeof input !== "object" || input === null) return "";
  const o = input as Record<string, unknown>;
  const values = Object.values(o);
  const first = values[0];
  const key = SUBJECT_KEYS.find((k) => typeof o[k] === "string");
  const searched = typeof o.pattern === "string" && typeof o.path === "string";
  const s =
    values.length === 1 && typeof first === "string"
      ? first
      : searched
        ? `${o.pattern as string} in ${o.path as string}`
        : typeof o.skill === "string" && typeof o.args === "string"
          ? `${o.skill} ${o.args}`
          : key
            ? `${o[key] as string}${key === "subagent_type" && typeof o.description === "string" ? `: ${o.description}` : ""}`
            : JSON.stringify(input);
  const oneLine = printable(s.replace(/\s+/g, " "), false);
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}

/** On a terminal, a call's input is cut to the line's width (by the tool line); else at 80 characters. */
const inputRoom = (at: Layout) => (at.width === undefined ? 80 : 2000);
