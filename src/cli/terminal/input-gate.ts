import { PassThrough } from "node:stream";

type Terminal = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/**
 * One terminal, two readers: the conversation's line editor, and a question asked in the middle
 * of a turn (an approval) that takes the keys while it is open. Each reads its own stream, fed
 * from the terminal; a key goes to the question while one is open, else to the conversation, so
 * no key is read twice (nothing typed at the question lands on the next prompt). The terminal's
 * raw mode belongs to the conversation's editor: a question that ends does not turn it off.
 */
export interface InputGate {
  /** The conversation's input. */
  readonly input: NodeJS.ReadableStream;
  /**
   * A stream that gets every key until `release` (one question at a time); `ended` aborts when
   * Ctrl-D is typed at the question: the end of the input, which answers nothing.
   */
  borrow(): { readonly input: NodeJS.ReadableStream; readonly ended: AbortSignal; release(): void };
  /** Stops reading the terminal, so that the process can end. */
  close(): void;
}

const CTRL_D = "\x04";

export function inputGate(terminal: Terminal): InputGate {
  const tty = (raw: (mode: boolean) => unknown) =>
    Object.assign(new PassThrough(), { isTTY: true, setRawMode: raw });
  const repl = tty((mode) => terminal.setRawMode?.(mode));
  let borrowed: { stream: PassThrough; end: AbortController } | undefined;
  const onData = (chunk: Buffer | string) => {
    if (!borrowed) return repl.write(chunk);
    const keys = chunk.toString();
    if (keys.includes(CTRL_D)) borrowed.end.abort();
    return borrowed.stream.write(keys.replaceAll(CTRL_D, ""));
  };
  const onEnd = () => {
    borrowed?.stream.end();
    repl.end();
  };
  terminal.on("data", onData);
  terminal.on("end", onEnd);
  return {
    input: repl,
    borrow() {
      const own = { stream: tty(() => undefined), end: new AbortController() };
      borrowed = own;
      return {
        input: own.stream,
        ended: own.end.signal,
        release() {
          if (borrowed === own) borrowed = undefined;
          own.stream.end();
        },
      };
    },
    close() {
      terminal.removeListener("data", onData);
      terminal.removeListener("end", onEnd);
      terminal.pause();
    },
  };
}
