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
