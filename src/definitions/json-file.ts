import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";

/** A JSON file's value, and where each part of it is (for diagnostics at file:line:col). */
export interface JsonFile {
  readonly value: unknown;
  /** The position of the value at `keys` (`["permissions", "allow", 2]`); the file's start when absent. */
  locate(keys: readonly (string | number)[]): { line: number; column: number };
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

export function parseJsonText(text: string): JsonRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = errorPosition(e as Error, text);
    return { kind: "bad", message: `is not valid JSON: ${(e as Error).message}`, ...at };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return {
    kind: "ok",
    json: {
      value,
      locate(keys) {
        const node = doc.getIn(keys, true) as { range?: [number, number] } | undefined;
        const offset = node?.range?.[0];
        if (offset === undefined) return { line: 1, column: 1 };
        const { line, col } = lines.linePos(offset);
        return { line, column: col };
      },
    },
  };
}

function errorPosition(e: Error, text: string): { line: number; column: number } {
  const m = /position (\d+)/.exec(e.message);
  const offset = m ? Number(m[1]) : text.length;
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
