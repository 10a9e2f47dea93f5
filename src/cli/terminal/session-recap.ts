import type { RunEvent } from "../../loop/events.js";
import { liveEvents, readSession, sessionsDir } from "../../loop/transcript.js";
import type { Style } from "../io.js";
import { printable } from "./printable.js";
import { createTextRenderer, type Out, type RenderOptions } from "./render.js";
import { fitWidth } from "./width.js";

/** How much of a resumed conversation is shown: its last exchanges, each answer's first lines. */
export interface RecapLimits {
  readonly exchanges: number;
  readonly answerLines: number;
}
export const RECAP_LIMITS: RecapLimits = { exchanges: 10, answerLines: 12 };

/**
 * The recap of the saved session `id` of a project, as `/resume ID`, `chat -c` and `chat -r ID`
 * show it; nothing when it cannot be read now (the run that resumes it says why).
 */
export function recapSaved(
  projectDir: string,
  id: string,
  out: Out,
  style: Style,
  options: RenderOptions,
): void {
  let events: RunEvent[];
  try {
    events = readSession(sessionsDir(projectDir), id).events;
  } catch {
    return;
  }
  recapSession(events, out, style, options);
}

/**
 * A session's conversation so far, as `/resume ID` shows it before the next prompt: each thing the
 * user typed (`› …`), the main agent's answers (their first lines, rendered as in the run) and its
 * tool lines; subagents' inner work is left out (their Task line says what they did). Only the
 * last exchanges are shown, with a count of those before.
 */
export function recapSession(
  events: readonly RunEvent[],
  out: Out,
  style: Style,
  options: RenderOptions,
  limits: RecapLimits = RECAP_LIMITS,
): void {
  // A rewound conversation is shown as it stands.
  const main = liveEvents(events).filter((e) => e.depth === 0);
  const starts = main.flatMap((e, i) => (isTyped(e) ? [i] : []));
  const from = starts.length > limits.exchanges ? (starts.at(-limits.exchanges) ?? 0) : 0;
  const earlier = starts.filter((i) => i < from).length;
  if (earlier > 0) out.write(`${style.dim(`… ${earlier} earlier message${earlier === 1 ? "" : "s"}`)}\n`);
  // Answers come whole: nothing streams, so nothing is previewed.
  const render = createTextRenderer(out, style, { ...options, preview: false });
  const width = options.width?.();
  for (const e of main.slice(from)) {
    if (isTyped(e)) {
      const typed = printable(typedText(e.content).replace(/\s+/g, " ").trim(), false);
      out.write(`${style.bold("›")} ${width === undefined ? typed : fitWidth(typed, width - 2)}\n`);
    } else if (e.type === "message_end") {
      const text = e.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      if (text.trim() !== "") render({ ...e, type: "message_delta", text: cut(text, limits.answerLines) });
      render(e);
    } else if (e.type === "tool_start" || e.type === "tool_end" || e.type === "todos") render(e);
  }
}

type UserMessage = Extract<RunEvent, { type: "user_message" }>;

/** A message the user typed (a line, or a `/command`'s expansion), not a turn's tool results. */
const isTyped = (e: RunEvent): e is UserMessage =>
  e.type === "user_message" && typedText(e.content).trim() !== "";

function typedText(content: UserMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
}

/** The first `lines` lines of an answer, and how many more there were. */
function cut(text: string, lines: number): string {
  const all = text.trimEnd().split("\n");
  if (all.length <= lines) return `${text.trimEnd()}\n`;
  return `${all.slice(0, lines).join("\n")}\n\n… +${all.length - lines} lines\n`;
}
