import { StringDecoder } from "node:string_decoder";

export interface LineWindow {
  /** The first line to keep (1-based). */
  readonly offset: number;
  readonly limit: number;
  /** Characters kept of a line; the rest is counted. */
  readonly maxLine: number;
}

export interface ReadLines {
  /** The lines of the window, numbered, each at most `maxLine` characters. */
  readonly lines: readonly { readonly n: number; readonly text: string; readonly length: number }[];
  /** How many lines the file has. */
  readonly total: number;
  readonly bytes: number;
  /** A NUL byte in the first 8 KiB: not text. */
  readonly binary: boolean;
  readonly aborted: boolean;
}

/**
 * Lines offset…offset+limit-1 of a stream of chunks, read once: memory is bounded by what is kept
 * (the window, each line cut at `maxLine` characters), whatever the size of the file or of a line;
 * lines past the window are only counted. The signal is honoured between chunks.
 */
export async function readLines(
  chunks: AsyncIterable<Buffer>,
  w: LineWindow,
  signal: AbortSignal,
): Promise<ReadLines> {
  const lines: { n: number; text: string; length: number }[] = [];
  const last = w.offset + w.limit - 1;
  let n = 1;
  let bytes = 0;
  let first = true;
  let open = false;
  const decoder = new StringDecoder("utf8");
  let kept = "";
  let length = 0;
  const keep = () => n >= w.offset && n <= last;
  const endLine = () => {
    if (keep()) {
      kept += decoder.end();
      const text = kept.endsWith("\r") ? kept.slice(0, -1) : kept;
      lines.push({ n, text: text.slice(0, w.maxLine), length: kept.endsWith("\r") ? length - 1 : length });
      kept = "";
      length = 0;
    }
    n++;
    open = false;
  };
  for await (const chunk of chunks) {
    if (signal.aborted) return { lines, total: n - 1, bytes, binary: false, aborted: true };
    if (first && chunk.subarray(0, 8192).includes(0))
      return { lines: [], total: 0, bytes: chunk.length, binary: true, aborted: false };
    first = false;
    bytes += chunk.length;
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (n > last) {
        // Past the window: lines are only counted.
        if (nl === -1) {
          if (start < chunk.length) open = true;
          break;
        }
        n++;
        open = false;
        start = nl + 1;
        continue;
      }
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (piece.length > 0) {
        open = true;
        if (keep()) {
          const s = decoder.write(piece);
          length += s.length;
          if (kept.length <= w.maxLine) kept += s.slice(0, w.maxLine + 1 - kept.length);
        }
      }
      if (nl === -1) break;
      endLine();
      start = nl + 1;
    }
  }
  if (open) endLine();
  return { lines, total: n - 1, bytes, binary: false, aborted: signal.aborted };
}
