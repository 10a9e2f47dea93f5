/**
 * A listing written whole, or a page at a time on a terminal: after each screenful the reader is
 * asked to go on (Enter) or stop (q), as `more` does, and is told how much was left unseen.
 */
export interface PagedOutput {
  write(s: string): unknown;
  readonly isTTY?: boolean;
  readonly rows?: number;
}

/** Writes `lines`; `ask` (a terminal's question) pages them. Resolves to how many lines were not shown. */
export async function pageLines(
  lines: readonly string[],
  out: PagedOutput,
  ask: ((question: string) => Promise<string | undefined>) | undefined,
): Promise<number> {
  const page = Math.max(5, (out.rows ?? 24) - 2);
  if (ask === undefined || out.isTTY !== true || lines.length <= page) {
    if (lines.length > 0) out.write(`${lines.join("\n")}\n`);
    return 0;
  }
  for (let at = 0; at < lines.length; at += page) {
    out.write(`${lines.slice(at, at + page).join("\n")}\n`);
    const left = lines.length - at - page;
    if (left <= 0) break;
    const answer = await ask(
      `-- ${left} more line${left === 1 ? "" : "s"}: Enter for the next page, q to stop listing -- `,
    );
    if (answer === undefined || /^\s*q/i.test(answer)) {
      out.write(
        `(${left} line${left === 1 ? "" : "s"} not shown: run 'agentmd trust --json' or pipe the listing to see all)\n`,
      );
      return left;
    }
  }
  return 0;
}
