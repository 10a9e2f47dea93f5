import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type BatchItem, type ItemError, itemOfLine } from "./batch-item.js";

/** The errors kept to be shown; the rest are counted. */
const ERRORS_KEPT = 20;

/**
 * A batch file checked line by line and read again for each use, so that no step of a batch
 * (checking, queueing, running) holds all its items: a file of 10,000 items costs what one of ten
 * does, bar the ids kept while it is checked (a repeated id is an error, and must be found before
 * anything runs).
 */
export interface ItemSource {
  /** How many items the file holds. */
  readonly count: number;
  /** The items in the file's order, read from the file again. */
  items(): AsyncGenerator<BatchItem>;
  /** The ids at these places of the file (0-based among its items), in the file's order. */
  idsAt(ordinals: readonly number[]): Promise<string[]>;
  /** Removes what the source made (standard input's copy). Contract: idempotent. */
  close(): void;
}

export type CheckedFile =
  | { readonly kind: "items"; readonly source: ItemSource }
  | { readonly kind: "errors"; readonly errors: readonly ItemError[]; readonly count: number };

/**
 * Checks every line of `file` (read as a stream) and gives a source of its items, or the first
 * errors and how many there are: a file with any error runs nothing (a typo fixed later would run
 * twice under two spellings). Rejects when the file cannot be read.
 */
export async function checkItemFile(file: string, onClose: () => void = () => {}): Promise<CheckedFile> {
  const seen = new Map<string, number>();
  const errors: ItemError[] = [];
  let errorCount = 0;
  let count = 0;
  for await (const r of lines(file)) {
    const item = itemOfLine(r.text, r.line, seen);
    if (item === undefined) continue;
    if ("message" in item) {
      errorCount++;
      if (errors.length < ERRORS_KEPT) errors.push(item);
    } else count++;
  }
  if (errorCount > 0) {
    onClose();
    return { kind: "errors", errors, count: errorCount };
  }
  let closed = false;
  const items = async function* () {
    const again = new Map<string, number>();
    for await (const r of lines(file)) {
      const item = itemOfLine(r.text, r.line, again);
      if (item !== undefined && !("message" in item)) yield item;
      // The file changed since it was checked: what it holds now was not.
      else if (item !== undefined)
        throw new Error(`${file}:${r.line} changed since it was read: ${item.message}`);
      again.clear();
    }
  };
  return {
    kind: "items",
    source: {
      count,
      items,
      idsAt: async (ordinals) => {
        const wanted = new Set(ordinals);
        const out: string[] = [];
        let i = 0;
        for await (const item of items()) if (wanted.has(i++)) out.push(item.id);
        return out;
      },
      close: () => {
        if (!closed) onClose();
        closed = true;
      },
    },
  };
}

/**
 * Standard input copied to a file of its own (removed by the source's `close`), so that it can be
 * read twice, as a named file is: once to check it, once to run it.
 */
export async function checkItemStream(
  input: AsyncIterable<string | Buffer> | Iterable<string>,
): Promise<CheckedFile> {
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-batch-"));
  const file = path.join(dir, "stdin.jsonl");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await pipeline(Readable.from(input), createWriteStream(file));
    return await checkItemFile(file, remove);
  } catch (e) {
    remove();
    throw e;
  }
}

async function* lines(file: string): AsyncGenerator<{ text: string; line: number }> {
  const stream = createReadStream(file, { encoding: "utf8" });
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of reader) yield { text, line: ++line };
  } finally {
    reader.close();
    stream.destroy();
  }
}
