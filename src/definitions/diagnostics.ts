import type { Diagnostic, Severity, SourcePos, Surface } from "./types.js";

/**
 * Collects diagnostics for one file. Positions are relative to the file; the sink fills in the
 * file name and surface so that the steps of the loader only talk about lines and columns.
 */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];

  constructor(
    readonly file: string,
    readonly surface: Surface | undefined,
  ) {}

  add(severity: Severity, code: string, message: string, line = 1, column = 1): void {
    const d: Diagnostic = { file: this.file, line, column, severity, code, message: cutText(message) };
    this.items.push(this.surface ? { ...d, surface: this.surface } : d);
  }

  at(pos: { line: number; column: number }): (severity: Severity, code: string, message: string) => void {
    return (severity, code, message) => this.add(severity, code, message, pos.line, pos.column);
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === "error");
  }

  pos(line: number, column: number): SourcePos {
    return { file: this.file, line, column };
  }
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Orders diagnostics by file, then position, then severity, so output is stable run to run. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if (a.column !== b.column) return a.column - b.column;
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity];
}

const MAX_MESSAGE = 1000;

/** A message at a length a line can show, saying how long it was: hostile values stay readable. */
export function cutText(text: string, max = MAX_MESSAGE): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters in all)` : text;
}
