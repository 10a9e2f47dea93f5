import { readFileSync } from "node:fs";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";

/** A JSON file's value, and where each part of it is (for diagnostics at file:line:col). */
export interface JsonFile {
  readonly value: unknown;
  /** The position of the value at `keys` (`["permissions", "allow", 2]`); the file's start when absent. */
  locate(keys: readonly (string | number)[]): { line: number; column: number };
  /** The position of the key that ends `keys` (for a misspelled key); its value's when there is none. */
  locateKey(keys: readonly (string | number)[]): { line: number; column: number };
}

export type JsonRead =
  | { readonly kind: "ok"; readonly json: JsonFile }
  | { readonly kind: "missing" }
  | { readonly kind: "bad"; readonly message: string; readonly line: number; readonly column: number };

/** Reads a JSON file (settings, `.mcp.json`). A missing file is `missing`; one that is not JSON says where. Never throws. */
export function readJsonFile(file: string): JsonRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "bad", message: `cannot be read: ${(e as Error).message}`, line: 1, column: 1 };
  }
  return parseJsonText(text);
}

export function parseJsonText(text: string): Exclude<JsonRead, { kind: "missing" }> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = errorPosition(e as Error, text);
    return { kind: "bad", message: `is not valid JSON: ${(e as Error).message}`, ...at };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return { line: 1, column: 1 };
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  // JSON.parse keeps the last of two equal keys, so `"deny": ["Bash"], "deny": []` would drop a
  // rule without a word: a key given twice is an error at its second place.
  const duplicate = doc.errors.find((e) => e.code === "DUPLICATE_KEY");
  if (duplicate) {
    const key = keyAt(text, duplicate.pos[0]);
    return {
      kind: "bad",
      message: `has the key ${key === undefined ? "" : `${key} `}twice in one object; a JSON reader keeps only the last, so write it once`,
      ...at(duplicate.pos[0]),
    };
  }
  const locate = (keys: readonly (string | number)[]) =>
    at((doc.getIn(keys, true) as { range?: [number, number] } | undefined)?.range?.[0]);
  return {
    kind: "ok",
    json: {
      value,
      locate,
      locateKey(keys) {
        const parent = keys.length > 1 ? doc.getIn(keys.slice(0, -1), true) : doc.contents;
        const last = keys[keys.length - 1];
        const pair = isMap(parent)
          ? parent.items.find((p) => isScalar(p.key) && p.key.value === last)
          : undefined;
        const key = pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
        return key === undefined ? locate(keys) : at(key);
      },
    },
  };
}

/** The JSON string that starts at `offset`, as written (`"deny"`); undefined when none does. */
function keyAt(text: string, offset: number): string | undefined {
  const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(offset, offset + 200));
  return m?.[0];
}

function errorPosition(e: Error, text: string): { line: number; column: number } {
  const m = /position (\d+)/.exec(e.message);
  const offset = m ? Number(m[1]) : firstJsonError(text);
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}

/**
 * Where JSON text first goes wrong (the parser's own message does not always say): a small
 * recursive descent over the grammar, returning the offset of the first character that cannot
 * continue it (the text's length when it ends too soon).
 */
export function firstJsonError(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if ((text.charCodeAt(i) ?? 0) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    i += (m as RegExpExecArray)[0].length;
  };
  const list = (close: string, item: () => void) => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === ",") {
        i++;
        ws();
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail();
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{")
      list("}", () => {
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
    else if (c === "[") list("]", value);
    else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c !== undefined && /[-\d]/.test(c)) number();
    else fail();
  };
  try {
    value();
    ws();
    return Math.min(i, text.length);
  } catch (at) {
    return typeof at === "number" ? Math.min(at, text.length) : text.length;
  }
}
