import {
  AbortPromptError,
  createPrompt,
  ExitPromptError,
  isBackspaceKey,
  isDownKey,
  isEnterKey,
  isUpKey,
  useKeypress,
  useState,
} from "@inquirer/core";
import type { ApprovalAnswer } from "../../loop/execute-call.js";
import type { Style } from "../io.js";
import type { InputGate } from "./input-gate.js";
import { printable } from "./render.js";

/** Who answers one approval question: the answer, or undefined when no one did. */
export type Answerer = (rule: string, signal: AbortSignal | undefined) => Promise<ApprovalAnswer | undefined>;

const CHOICES = [
  { key: "y", kind: "once" },
  { key: "a", kind: "session" },
  { key: "n", kind: "deny" },
] as const;

interface Question {
  /** What "always" allows for the session (`Bash(git push:*)`). */
  readonly rule: string;
  readonly style: Style;
}

/**
 * The question on a terminal: one key answers (y, a, n), or the arrows and Enter; after "no" a
 * line of text, the reason the model is told (Enter alone: no reason). Built on Inquirer's core,
 * which owns the keys and redraws the question in place.
 */
const question = createPrompt<ApprovalAnswer, Question>(({ rule, style }, done) => {
  const [at, setAt] = useState(0);
  const [stage, setStage] = useState<"choose" | "why" | "done">("choose");
  const [said, setSaid] = useState("");
  const [why, setWhy] = useState("");
  const finish = (answer: ApprovalAnswer, words: string) => {
    setStage("done");
    setSaid(words);
    done(answer);
  };
  useKeypress((key, rl) => {
    if (stage === "why") {
      // Enter has emptied the line by now: the reason is what it held before.
      if (!isEnterKey(key)) return setWhy(rl.line);
      const reason = why.trim();
      return finish(reason ? { kind: "deny", reason } : { kind: "deny" }, reason ? `no: ${reason}` : "no");
    }
    if (stage !== "choose") return;
    const typed = CHOICES.findIndex((c) => c.key === key.name?.toLowerCase());
    rl.clearLine(0);
    if (isUpKey(key)) return setAt((at + CHOICES.length - 1) % CHOICES.length);
    if (isDownKey(key)) return setAt((at + 1) % CHOICES.length);
    const chosen = typed !== -1 ? typed : isEnterKey(key) ? at : -1;
    if (chosen === -1 || isBackspaceKey(key)) return;
    setAt(chosen);
    const kind = CHOICES[chosen]?.kind;
    if (kind === "once") finish({ kind: "once" }, "yes");
    else if (kind === "session") finish({ kind: "session" }, `always: ${rule} for this session`);
    else setStage("why");
  });
  const head = `  ${style.bold("allow?")}`;
  if (stage === "done") return `${head} ${said}`;
  if (stage === "why")
    return `${head} no ${style.dim("— why? (the model is told; Enter for no reason) ›")} ${why}`;
  const labels = ["yes", `always: ${rule} for this session`, "no, and say why"];
  const lines = CHOICES.map((c, i) => {
    const text = `${c.key}  ${labels[i]}`;
    return i === at ? `  ${style.cyan(`❯ ${text}`)}` : `    ${text}`;
  });
  return [head, ...lines, style.dim("  (press y, a or n; or ↑↓ and Enter)")].join("\n");
});

/**
 * Asks on the terminal, with the keys the gate lends for the question. Ctrl-C at the question
 * stops the turn as it does anywhere else in it (`interrupt`); Ctrl-D ends the input: either way
 * no one answered, which is a no.
 */
export function selectAnswerer(
  gate: InputGate,
  out: NodeJS.WritableStream,
  style: Style,
  interrupt: () => void,
): Answerer {
  return async (rule, signal) => {
    const keys = gate.borrow();
    try {
      return await question(
        { rule: printable(rule, false), style },
        {
          input: keys.input,
          output: out,
          signal: signal ? AbortSignal.any([signal, keys.ended]) : keys.ended,
        },
      );
    } catch (e) {
      if (e instanceof ExitPromptError) {
        interrupt();
        return undefined;
      }
      // The turn stopped, or Ctrl-D ended the input: no one answered.
      if (e instanceof AbortPromptError) {
        if (keys.ended.aborted) out.write(`${style.dim("  no answer: the input ended (Ctrl-D)")}\n`);
        return undefined;
      }
      throw e;
    } finally {
      keys.release();
    }
  };
}
