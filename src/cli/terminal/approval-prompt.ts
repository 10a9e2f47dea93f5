import { diffLines } from "diff";
import type { Approver } from "../../invocation/approvals.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../loop/execute-call.js";
import { sessionRuleFor } from "../../permissions/approval.js";
import { loadShellParser } from "../../permissions/shell/parse-shell.js";
import type { Style } from "../io.js";
import type { Answerer } from "./approval-select.js";
import type { LineQueue } from "./line-queue.js";
import { printable } from "./render.js";

const PREVIEW_LINES = 40;

/**
 * What an edit or write would change, before the question: removed lines red (`-`), added green
 * (`+`), by the `diff` library; a Write shows the content it would write. At most 40 lines.
 */
export function changePreview(tool: string, input: unknown, style: Style): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const o = input as Record<string, unknown>;
  const edits =
    tool === "Edit" && typeof o.old_string === "string" && typeof o.new_string === "string"
      ? [{ old: o.old_string, new: o.new_string }]
      : tool === "MultiEdit" && Array.isArray(o.edits)
        ? (o.edits as { old_string?: unknown; new_string?: unknown }[]).map((e) => ({
            old: String(e.old_string ?? ""),
            new: String(e.new_string ?? ""),
          }))
        : tool === "Write" && typeof o.content === "string"
          ? [{ old: "", new: o.content }]
          : [];
  if (edits.length === 0) return undefined;
  const lines: string[] = [];
  for (const e of edits)
    for (const part of diffLines(e.old, e.new))
      for (const line of part.value.replace(/\n$/, "").split("\n")) {
        const text = printable(line, false);
        lines.push(
          part.added
            ? style.green(`  + ${text}`)
            : part.removed
              ? style.red(`  - ${text}`)
              : style.dim(`    ${text}`),
        );
      }
  const more = lines.length - PREVIEW_LINES;
  return [
    ...lines.slice(0, PREVIEW_LINES),
    ...(more > 0 ? [style.dim(`    … ${more} more lines`)] : []),
  ].join("\n");
}

/**
 * Asks in the conversation whether a call may run, one question at a time (parallel calls wait
 * their turn): `y` once, `a` for calls like it for the rest of the session, `n` (optionally with
 * a reason the model is told). `answer` asks (a select on a terminal, a line otherwise); no
 * answer (a stopped turn, the end of the input): no.
 */
export function createApprovalPrompt(
  answer: Answerer,
  out: { write(text: string): unknown },
  style: Style,
  turn: {
    readonly before: () => void;
    readonly after: () => void;
    readonly signal: () => AbortSignal | undefined;
  },
): Approver {
  let queue: Promise<unknown> = Promise.resolve();
  const askOne = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    // The status line is held while the question is open: no frame is drawn over it.
    turn.before();
    try {
      const rule = sessionRuleFor(request.call, await loadShellParser());
      out.write(`${describeRequest(request, style)}\n`);
      const preview = changePreview(request.call.tool, request.call.input, style);
      if (preview) out.write(`${preview}\n`);
      return (await answer(rule, turn.signal())) ?? { kind: "deny", reason: "no one answered" };
    } finally {
      turn.after();
    }
  };
  return (request) => {
    const answered = queue.then(() => askOne(request));
    queue = answered.catch(() => undefined);
    return answered;
  };
}

/** The question as a line (input piped in, or no terminal): the answer is the next line typed. */
export function lineAnswerer(
  lines: LineQueue,
  out: { write(text: string): unknown },
  style: Style,
): Answerer {
  return async (rule, signal) => {
    out.write(style.dim(`  allow? [y] yes  [a] always: ${rule} for this session  [n] no, and why › `));
    const line = await lines.next(signal);
    if (line === undefined) out.write("\n");
    return line === undefined ? undefined : parseAnswer(line);
  };
}

/** `y`/`yes`, `a`/`always`, or a refusal (`n`, `no because …`, anything else). */
export function parseAnswer(text: string): ApprovalAnswer {
  const t = text.trim();
  if (/^(y|yes)$/i.test(t)) return { kind: "once" };
  if (/^(a|always)$/i.test(t)) return { kind: "session" };
  const reason = t.replace(/^(n|no)\b[\s,:-]*/i, "").trim();
  return reason ? { kind: "deny", reason } : { kind: "deny" };
}

/** `? reviewer wants to run Bash: npm test  (it is not pre-approved)` */
function describeRequest(request: ApprovalRequest, style: Style): string {
  const who = request.depth > 0 ? `the subagent ${request.agent}` : request.agent;
  return `${style.yellow("?")} ${printable(who, false)} wants to run ${style.bold(request.call.tool)}: ${printable(subjectOf(request.call.input), false)}  ${style.dim(`(${printable(request.reason, false)})`)}`;
}

function subjectOf(input: unknown): string {
  if (typeof input !== "object" || input === null) return String(input);
  const o = input as Record<string, unknown>;
  for (const key of [
    "command",
    "file_path",
    "notebook_path",
    "path",
    "url",
    "subagent_type",
    "skill",
    "pattern",
  ])
    if (typeof o[key] === "string") return cut(o[key] as string);
  return cut(JSON.stringify(input));
}

const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
