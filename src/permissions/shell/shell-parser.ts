import type { ShellScript } from "./shell-script.js";

// The parser's contract alone, free of the grammar's own types: the public declarations name it
// without pulling web-tree-sitter's (which need Emscripten's global types) into a consumer's build.

/**
 * Command lines read by a real bash parser: tree-sitter's bash grammar, compiled to WebAssembly.
 * Loading it is asynchronous (~20–40 ms); reading a line after that is synchronous, so the
 * permission engine stays a pure, synchronous function that is handed the parser it reads with.
 * Without one, a line that is not plain words cannot be read, and is judged as such (denied where
 * patterns apply).
 */
export interface ShellParser {
  /** The simple commands and written files of a line. Contract: never throws. */
  parse(line: string): ShellScript;
  /**
   * The quoting context at each offset of a line (UTF-16 offsets, as JavaScript counts): in `'…'`,
   * in `"…"`, in `$'…'`, in a here-document, or plain — which `$( … )` restores, even inside `"…"`.
   * Null when the line cannot be parsed.
   */
  quoting(line: string, spans: readonly (readonly [number, number])[]): QuoteContext[] | null;
}

/** Where a word stands in a command line, for quoting a value put there. */
export type QuoteContext = "plain" | "double" | "single" | "ansi" | "heredoc" | "literal-heredoc";
