import type cliTruncateFn from "cli-truncate";
import type stringWidthFn from "string-width";
import type wrapAnsiFn from "wrap-ansi";

interface Measuring {
  readonly stringWidth: typeof stringWidthFn;
  readonly cliTruncate: typeof cliTruncateFn;
  readonly wrapAnsi: typeof wrapAnsiFn;
}

let measuring: Measuring | undefined;

/**
 * `string-width`, `wrap-ansi` and `cli-truncate`, loaded at their first use rather than at start-up:
 * their module bodies build Unicode tables (an `Intl.Segmenter`, the emoji property's expression)
 * that cost a process 30-40 ms, which a run whose output is plain text never needs. The bundle
 * turns each `require` into a module initialised where it is called.
 */
function measure(): Measuring {
  measuring ??= {
    stringWidth: require("string-width").default,
    cliTruncate: require("cli-truncate").default,
    wrapAnsi: require("wrap-ansi").default,
  };
  return measuring;
}

/** Printable ASCII only: as many columns as characters, nothing to measure. */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * Terminal columns, measured as a terminal draws them: wide characters (CJK, emoji) take two,
 * ANSI colour takes none. `string-width`, `wrap-ansi` and `cli-truncate` do the measuring, so a
 * line cut or wrapped here never splits an escape sequence or half a wide character.
 */
export const widthOf = (s: string): number => (PLAIN.test(s) ? s.length : measure().stringWidth(s));

/** The stream's width now (read at each use, so a resized terminal is followed); 80 when unknown. */
export function columnsOf(stream: { columns?: number } | undefined): number {
  const c = stream?.columns;
  return typeof c === "number" && c > 0 ? c : 80;
}

/** `s` cut to `width` columns with `…` at the end (colour closed), or as it is when it fits. */
export function fitWidth(s: string, width: number): string {
  if (widthOf(s) <= width) return s;
  const { cliTruncate } = measure();
  // A cut that lands inside a wide character comes out one column over: cut one shorter then.
  let cut = cliTruncate(s, Math.max(1, width), { position: "end" });
  if (widthOf(cut) > width) cut = cliTruncate(s, Math.max(1, width - 1), { position: "end" });
  return cut;
}

/**
 * `body` wrapped to `width` columns at spaces (a word longer than a line is broken), after
 * `prefix` on the first line and under it on the others (a hanging indent as wide as the prefix).
 */
export function wrapHanging(prefix: string, body: string, width: number): string[] {
  const hang = " ".repeat(widthOf(prefix));
  const lines = measure()
    .wrapAnsi(body, Math.max(1, width - hang.length), { hard: true, trim: true })
    .split("\n");
  return lines.map((l, i) => `${i === 0 ? prefix : hang}${l}`);
}
