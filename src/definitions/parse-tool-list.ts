import { isScalar, isSeq } from "yaml";
import { suggestion } from "../shared/did-you-mean.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { FOREIGN_TOOL_NAMES, isMcpToolName, type ToolNames } from "./tool-names.js";
import type { ToolEntry, ToolList } from "./types.js";
import type { Field, Pos } from "./yaml-fields.js";

/**
 * Splits one tool-list string into entries at parenthesis depth 0, on commas and/or whitespace:
 * `Bash(git add:*), Read Grep` → `Bash(git add:*)`, `Read`, `Grep`. Offsets are into `text`.
 * An unbalanced `)` or an unclosed `(` ends up inside an entry, where `parseEntry` reports it.
 */
export function splitToolList(text: string): { raw: string; offset: number }[] {
  const out: { raw: string; offset: number }[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const ch = i < text.length ? text[i] : ",";
    const separator = ch === "," || /\s/.test(ch ?? "");
    if (depth === 0 && separator) {
      if (start !== -1) out.push({ raw: text.slice(start, i), offset: start });
      start = -1;
      continue;
    }
    if (start === -1) start = i;
    if (ch === "(") depth++;
    else if (ch === ")" && depth > 0) depth--;
  }
  if (depth > 0 && start !== -1) out.push({ raw: text.slice(start), offset: start });
  return out;
}

/** Far above any real list (the longest of ~2,000 public files has 20 entries). */
const MAX_ENTRIES = 1000;

const ENTRY = /^(?<name>[^()\s,]*)(?:\((?<pattern>.*)\))?$/s;
/** What the Messages API accepts as a tool name; `*` is allowed for `mcp__server__*` and `*`. */
const TOOL_NAME = /^[A-Za-z0-9_*-]{1,128}$/;

export type EntrySyntax = { ok: true; name: string; pattern?: string } | { ok: false; problem: string };

/** Checks the syntax of one entry: a non-empty name, balanced parentheses, nothing after `)`. */
export function parseEntry(raw: string): EntrySyntax {
  let depth = 0;
  for (const ch of raw) {
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    if (depth < 0) return { ok: false, problem: "has a ')' with no '(' before it" };
  }
  if (depth !== 0) return { ok: false, problem: "has a '(' that is never closed" };
  const open = raw.indexOf("(");
  if (open !== -1) {
    let d = 0;
    let closeAt = -1;
    for (let i = open; i < raw.length; i++) {
      if (raw[i] === "(") d++;
      else if (raw[i] === ")" && --d === 0) {
        closeAt = i;
        break;
      }
    }
    if (closeAt !== raw.length - 1) return { ok: false, problem: "has text after its closing ')'" };
  }
  const m = ENTRY.exec(raw);
  if (!m?.groups) return { ok: false, problem: "has text after its closing ')'" };
  const name = m.groups.name ?? "";
  if (name === "") return { ok: false, problem: "has no tool name before '('" };
  const pattern = m.groups.pattern;
  if (pattern === undefined) return { ok: true, name };
  if (pattern.trim() === "")
    return { ok: false, problem: "has empty parentheses; write the name alone to allow every call" };
  return { ok: true, name, pattern };
}

/**
 * Parses a tool-list value in any of the forms seen in the wild (YAML list, comma and/or space
 * separated string, `*`) into entries, reporting syntax errors and unknown names.
 * Returns null when the value's type is wrong (reported as an error).
 */
export function parseToolList(field: Field, sink: DiagnosticSink, known?: ToolNames): ToolList | null {
  const at = sink.pos(field.valuePos.line, field.valuePos.column);
  const pieces: { raw: string; pos: Pos }[] = [];
  const value = field.value;
  const addFromText = (text: string, pos: Pos) => {
    for (const piece of splitToolList(text))
      pieces.push({ raw: piece.raw, pos: { line: pos.line, column: pos.column + piece.offset } });
  };
  if (value === null || value === undefined || (typeof value === "string" && value.trim() === "")) {
    // Nothing to add: an empty list is still a list (see below).
  } else if (typeof value === "string") {
    addFromText(value, stringStart(field));
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const pos = field.locate([i]);
      if (typeof item === "string") {
        const node = isSeq(field.node) ? field.node.items[i] : undefined;
        const quoted = isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE");
        addFromText(item, quoted ? { line: pos.line, column: pos.column + 1 } : pos);
      } else {
        sink.add(
          "error",
          "tool-list-type",
          `'${field.key}' item ${i + 1} must be a tool name, got ${describe(item)}`,
          pos.line,
          pos.column,
        );
      }
    });
  } else {
    sink.add(
      "error",
      "tool-list-type",
      `'${field.key}' must be a list of tools or a comma-separated string, got ${describe(value)}`,
      field.valuePos.line,
      field.valuePos.column,
    );
    return null;
  }
  if (pieces.length > MAX_ENTRIES) {
    sink.add(
      "error",
      "tool-list-too-long",
      `'${field.key}' holds ${pieces.length} entries; agentmd reads at most ${MAX_ENTRIES}`,
      field.keyPos.line,
      field.keyPos.column,
    );
    return null;
  }
  const entries: ToolEntry[] = [];
  for (const p of pieces) {
    const entry = checkEntry(p.raw, p.pos, sink, known);
    if (entry) entries.push(entry);
  }
  if (
    entries.length === 0 &&
    !sink.items.some((d) => d.severity === "error" && d.code === "tool-entry-syntax")
  ) {
    const deny = field.key === "disallowed-tools" || field.key === "disallowedTools";
    sink.add(
      deny ? "info" : "warning",
      "empty-tool-list",
      deny
        ? `'${field.key}' is empty: it denies nothing`
        : `'${field.key}' is empty, so this agent may use no tools at all (Task and Skill included); remove the key to take its caller's tools`,
      field.keyPos.line,
      field.keyPos.column,
    );
  }
  return { key: field.key, entries, at };
}

function stringStart(field: Field): Pos {
  const node = field.node;
  const quoted = isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE");
  return quoted ? { line: field.valuePos.line, column: field.valuePos.column + 1 } : field.valuePos;
}

function checkEntry(
  raw: string,
  pos: Pos,
  sink: DiagnosticSink,
  known: ToolNames | undefined,
): ToolEntry | null {
  const at = sink.pos(pos.line, pos.column);
  const report = sink.at(pos);
  if (raw === "*") return { name: "*", raw, at };
  const syntax = parseEntry(raw);
  if (!syntax.ok) {
    report("error", "tool-entry-syntax", `tool entry '${raw}' ${syntax.problem}`);
    return null;
  }
  let name = syntax.name;
  if (name.includes("*") && !/^mcp__[^*]+__\*$/.test(name)) {
    report(
      "warning",
      "invalid-tool-name",
      `'${name}' is not a wildcard (only '*' alone and 'mcp__server__*' are); the entry matches no tool`,
    );
  } else if (!TOOL_NAME.test(name)) {
    report(
      "warning",
      "invalid-tool-name",
      `'${name}' cannot be a tool name (tool names are letters, digits, '_' and '-'); the entry stays but matches no tool`,
    );
  } else if (known && !known.has(name) && !isMcpToolName(name)) {
    const byCase = known.byCase(name);
    if (byCase) {
      report(
        "warning",
        "tool-name-case",
        `'${name}' taken as the built-in tool '${byCase}'; write it as '${byCase}'`,
      );
      name = byCase;
    } else if (FOREIGN_TOOL_NAMES.includes(name)) {
      report(
        "warning",
        "tool-not-provided",
        `'${name}' is a Claude Code tool that agentmd does not provide; the entry stays, but offers nothing unless a custom tool named '${name}' is registered`,
      );
    } else {
      report(
        "warning",
        "unknown-tool",
        `'${name}' is not a built-in tool and stays in the list in case an MCP server or custom tool supplies it${suggestion(name, known.names)}`,
      );
    }
  }
  const entry: ToolEntry = { name, raw, at };
  return syntax.pattern === undefined ? entry : { ...entry, pattern: syntax.pattern };
}

export function describe(value: unknown): string {
  if (value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return `'${value}'`;
  return `${typeof value} ${String(value)}`;
}
