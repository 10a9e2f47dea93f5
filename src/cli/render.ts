import type { RunEvent, RunResult } from "../loop/events.js";
import type { Style } from "./io.js";

/**
 * Text from the model or a tool, made safe to print on a terminal: control characters (ESC above
 * all) are shown, not obeyed, so no output can move the cursor, erase or fake a line.
 */
export function printable(text: string, keepNewlines = true): string {
  let out = "";
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (!control || ch === "\t" || (keepNewlines && ch === "\n")) out += ch;
    else out += code === 0x1b ? "^[" : `\\x${code.toString(16).padStart(2, "0")}`;
  }
  return out;
}

export interface Out {
  write(s: string): unknown;
}

/**
 * Renders a run's events as a person reads them: the model's text as it streams, each tool call on
 * one line with its decision, warnings and errors, and a closing summary. Subagent events are
 * indented by depth.
 */
export function createTextRenderer(out: Out, style: Style) {
  let atLineStart = true;
  const line = (s: string) => {
    if (!atLineStart) out.write("\n");
    out.write(`${s}\n`);
    atLineStart = true;
  };
  const indent = (depth: number) => "  ".repeat(depth);
  const inputs = new Map<string, unknown>();
  return (e: RunEvent) => {
    switch (e.type) {
      case "tool_start":
        inputs.set(e.id, e.input);
        // The line the model was writing ends here, so what is shown while the tool runs starts a line.
        if (!atLineStart) {
          out.write("\n");
          atLineStart = true;
        }
        break;
      case "message_delta": {
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
        const input = summariseInput(inputs.get(e.id));
        inputs.delete(e.id);
        line(
          `${indent(e.depth)}${style.cyan("⏺")} ${printable(e.name, false)}${input ? ` ${input}` : ""} → ${verdict}${why} ${style.dim(`(${Math.round(e.ms)} ms)`)}`,
        );
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
export function summariseInput(input: unknown): string {
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
  return oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine;
}
