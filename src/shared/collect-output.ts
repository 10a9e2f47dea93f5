import { isUtf8 } from "node:buffer";

export interface CollectedOutput {
  add(chunk: Buffer): void;
  /** The output as text, cut with a note; binary output is summarised. */
  text(): string;
  /**
   * The output since the last `take`, as `text()` shows it, and a fresh start: what comes next is
   * kept (and cut) anew. A character split across the boundary is kept whole for the next take.
   */
  take(): string;
  /** The last complete line so far (for progress). */
  lastLine(): string;
  /** Whether more came since the last `take` than the cap keeps (`text()` then ends with a note). */
  truncated(): boolean;
}

/**
 * The output cap of every process agentmd starts. Keeps the first bytes of a stream of chunks (enough for `maxChars` characters) and counts the
 * rest. Output that is not text (a NUL byte, or not UTF-8) is summarised as `[binary output, N bytes]`.
 */
export function collectOutput(maxChars: number): CollectedOutput {
  const maxBytes = maxChars * 4;
  let chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  let tail = "";
  const add = (chunk: Buffer) => {
    total += chunk.length;
    if (kept >= maxBytes) return;
    const room = maxBytes - kept;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    kept += Math.min(room, chunk.length);
  };
  return {
    add(chunk) {
      const s = chunk.toString("utf8", 0, Math.min(chunk.length, 4096));
      const lines = `${tail}${s}`.split("\n");
      tail = lines.length > 1 ? (lines.at(-2) ?? "") : (lines[0] ?? "").slice(-200);
      add(chunk);
    },
    text: () => render(Buffer.concat(chunks), kept, total, maxChars),
    take() {
      const bytes = Buffer.concat(chunks);
      const carry = kept === total ? incompleteEnd(bytes) : 0;
      const shown = render(bytes.subarray(0, bytes.length - carry), kept - carry, total - carry, maxChars);
      chunks = [];
      kept = 0;
      total = 0;
      if (carry > 0) add(bytes.subarray(bytes.length - carry));
      return shown;
    },
    lastLine: () => tail,
    truncated: () =>
      kept < total || (kept > maxChars && Buffer.concat(chunks).toString("utf8").length > maxChars),
  };
}

/** Kept bytes as text, with a note when more came than was kept. */
function render(bytes: Buffer, kept: number, total: number, maxChars: number): string {
  if (isBinary(bytes, kept < total)) return `[binary output, ${total} bytes]`;
  const s = bytes.toString("utf8");
  if (s.length <= maxChars && kept === total) return s;
  const shown = s.slice(0, maxChars);
  return `${shown}\n[output cut at ${maxChars} characters; ${total - Buffer.byteLength(shown)} more bytes not shown]`;
}

/** How many bytes at the end begin a UTF-8 character that has not arrived whole (0 to 3). */
function incompleteEnd(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] as number;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

function isBinary(bytes: Buffer, cut: boolean): boolean {
  if (bytes.subarray(0, 8192).includes(0)) return true;
  if (isUtf8(bytes)) return false;
  // A cut can split a character: allow up to three stray bytes at the end.
  if (!cut) return true;
  for (let drop = 1; drop <= 3 && drop < bytes.length; drop++)
    if (isUtf8(bytes.subarray(0, bytes.length - drop))) return false;
  return true;
}
