import type { DiagnosticSink } from "./diagnostics.js";
import { type Field, type ParsedYaml, parseYamlFields } from "./yaml-fields.js";

export interface Frontmatter {
  /** Whether the file opens with a `---` block. */
  readonly present: boolean;
  readonly fields: readonly Field[];
  readonly body: string;
  /** 1-based line on which the body starts. */
  readonly bodyLine: number;
  /** True when the block could not be read even with the recoveries; the file must be skipped. */
  readonly failed: boolean;
}

const OPENING = /^---[ \t]*\r?\n/;

/**
 * Splits a markdown file into frontmatter fields and body (as gray-matter splits it), with the
 * `yaml` package parsing the block. Strict YAML 1.2 first; when that fails, each known real-world
 * breakage is recovered key by key, with a warning saying what was assumed.
 * Contract: never throws; every problem is a diagnostic in `sink`.
 */
export function readFrontmatter(text: string, sink: DiagnosticSink): Frontmatter {
  if (!OPENING.test(text)) {
    warnMisplacedBlock(text, sink);
    return { present: false, fields: [], body: text, bodyLine: 1, failed: false };
  }
  // The block closes at the first "\n---", which must be a line of its own.
  const close = text.indexOf("\n---", 3);
  const exact = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.slice(3));
  if (close !== -1 && exact && close < exact.index + 3 + (exact[0].startsWith("\r") ? 1 : 0)) {
    const line = text.slice(0, close).split("\n").length + 1;
    sink.add(
      "error",
      "early-delimiter",
      `line ${line} starts with '---' inside the frontmatter, which would end it there and drop the keys after it; indent or quote that line`,
      line,
      1,
    );
    return { present: true, fields: [], body: "", bodyLine: 1, failed: true };
  }
  if (close === -1) {
    sink.add(
      "error",
      "unclosed-frontmatter",
      "the '---' block opened on line 1 never closes; add a line '---' after the last key",
    );
    return { present: true, fields: [], body: "", bodyLine: 1, failed: true };
  }
  const lineEnd = text.indexOf("\n", close + 4);
  const header = lineEnd === -1 ? text : text.slice(0, lineEnd + 1);
  const overBudget = budgetProblem(header);
  if (overBudget) {
    sink.add("error", "frontmatter-too-large", `${overBudget}; this file is not loaded`);
    return { present: true, fields: [], body: "", bodyLine: 1, failed: true };
  }
  // The block: from the end of `---` to the closing line. One of only blanks and `#` comments has
  // no keys and is not parsed. The body: what follows the closing `---` and its line break.
  const block = header.slice(3, close);
  let parsed: ParsedYaml = { fields: [], errors: [] };
  if (block.replace(/^\s*#[^\n]+/gm, "").trim() !== "") {
    try {
      parsed = parseWithRecovery(block, sink);
    } catch (e) {
      sink.add("error", "frontmatter-unreadable", `cannot read the frontmatter: ${String(e)}`);
      return { present: true, fields: [], body: "", bodyLine: 1, failed: true };
    }
  }
  const rest = header.slice(close + 4).replace(/^\r?\n?/, "");
  const body = rest + text.slice(header.length);
  const bodyLine = countLines(text, text.length - body.length);
  for (const err of parsed.errors) {
    sink.add("error", "yaml-syntax", `invalid YAML: ${err.message}`, err.pos.line, err.pos.column);
  }
  return { present: true, fields: parsed.fields, body, bodyLine, failed: parsed.errors.length > 0 };
}

/** Far above any real frontmatter (the largest of ~2,000 public files is 2.4 KB, with 20 entries a list). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
const MAX_NESTING = 64;
const MAX_KEYS = 500;

/**
 * Why a frontmatter block is too big to parse, checked on its text before the YAML parser sees it:
 * a deeply nested value can exhaust memory, and many keys cost the parser time that grows faster
 * than their number. Linear; undefined when it is within bounds.
 */
export function budgetProblem(header: string): string | undefined {
  if (header.length > MAX_FRONTMATTER_BYTES)
    return `the frontmatter is ${header.length} bytes; agentmd reads at most ${MAX_FRONTMATTER_BYTES}`;
  let depth = 0;
  let deepest = 0;
  let keys = 0;
  let lineStart = true;
  let indent = 0;
  let dashes = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
      dashes = 0;
      continue;
    }
    if (lineStart && (c === 32 || c === 9)) {
      if (++indent > MAX_NESTING * 4)
        return `the frontmatter is indented more than ${MAX_NESTING * 4} columns deep`;
      continue;
    }
    if (lineStart && c === 45 && header.charCodeAt(i + 1) === 32) {
      if (++dashes > MAX_NESTING) return `the frontmatter nests lists more than ${MAX_NESTING} deep`;
      i++;
      continue;
    }
    lineStart = false;
    if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth);
    else if ((c === 93 || c === 125) && depth > 0) depth--;
    else if (c === 58 && (header.charCodeAt(i + 1) === 32 || header.charCodeAt(i + 1) === 10)) keys++;
    if (deepest > MAX_NESTING) return `the frontmatter nests values more than ${MAX_NESTING} deep`;
  }
  if (keys > MAX_KEYS) return `the frontmatter has ${keys} keys; agentmd reads at most ${MAX_KEYS}`;
  return undefined;
}

/**
 * A block that looks like frontmatter but is not read as such (it does not start on line 1, or its
 * opening line is not exactly `---`): its keys, lists included, would be silently body text.
 */
function warnMisplacedBlock(text: string, sink: DiagnosticSink): void {
  const late =
    /^(\s*\n)[ \t]*---[ \t]*\r?\n(?=[^\n]*:)/.exec(text) ?? /^([ \t]+)---[ \t]*\r?\n(?=[^\n]*:)/.exec(text);
  if (late) {
    sink.add(
      "warning",
      "frontmatter-not-at-top",
      "a '---' block that does not start on line 1 is body text, so its keys (and any tool list) are not read; move it to the very top",
      (late[1] ?? "").split("\n").length,
      1,
    );
    return;
  }
  const opener = /^(---\S+)[ \t]*\r?\n(?=[^\n]*:)/.exec(text);
  if (opener && /\n---[ \t]*(\r?\n|$)/.test(text)) {
    sink.add(
      "warning",
      "frontmatter-not-at-top",
      `'${opener[1]}' does not open frontmatter, so the keys below it (and any tool list) are body text; write '---' alone`,
    );
  }
}

function countLines(text: string, end: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** A top-level `key:` line and the lines that belong to it (indented, blank, or comments). */
interface Entry {
  readonly key: string;
  /** 0-based index of the key line in the frontmatter source (line 1 of the file is index 0). */
  readonly start: number;
  readonly lines: string[];
}

/**
 * The key of a top-level `key:` line, or null for any other line. Written without a backtracking
 * regular expression: a long line must cost linear time.
 */
function keyOf(line: string): string | null {
  const first = line[0];
  if (first === undefined || /[\s#:[\]{}-]/.test(first)) return null;
  if (first === '"' || first === "'") {
    const end = line.indexOf(first, 1);
    if (end < 0) return null;
    let i = end + 1;
    while (line[i] === " " || line[i] === "\t") i++;
    const after = line[i + 1];
    return line[i] === ":" && (after === undefined || after === " " || after === "\t")
      ? line.slice(1, end)
      : null;
  }
  for (let i = line.indexOf(":"); i !== -1; i = line.indexOf(":", i + 1)) {
    const next = line[i + 1];
    if (next === undefined || next === " " || next === "\t") return line.slice(0, i).trimEnd();
  }
  return null;
}

function parseWithRecovery(src: string, sink: DiagnosticSink): ParsedYaml {
  const strict = parseYamlFields(src);
  if (
    strict.errors.length === 0 ||
    strict.errors.some((e) => e.code === "NOT_A_MAP" || e.code === "TOO_MANY_ALIASES")
  ) {
    return strict;
  }
  const entries = splitEntries(src);
  if (entries === null) return strict;
  const fields: Field[] = [];
  const warnings: (() => void)[] = [];
  for (const entry of entries) {
    const one = parseYamlFields(entry.lines.join("\n"), entry.start);
    if (one.errors.length === 0) {
      fields.push(...one.fields);
      continue;
    }
    const recovered = recoverEntry(entry);
    if (recovered === null) return strict;
    fields.push(recovered.field);
    warnings.push(() =>
      sink.add(
        "warning",
        "yaml-recovered",
        recovered.assumed,
        recovered.field.keyPos.line,
        recovered.field.keyPos.column,
      ),
    );
  }
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.key)) return strict;
    seen.add(f.key);
  }
  for (const w of warnings) w();
  return { fields, errors: [] };
}

function splitEntries(src: string): Entry[] | null {
  const entries: Entry[] = [];
  const lines = src.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").replace(/\r$/, "");
    const key = keyOf(line);
    if (key !== null) {
      entries.push({ key, start: i, lines: [line] });
      continue;
    }
    const blank = line.trim() === "" || line.trimStart().startsWith("#");
    const continues = /^[ \t]/.test(line) || line.startsWith("- ") || line === "-";
    const current = entries[entries.length - 1];
    if (blank) current?.lines.push(line);
    else if (continues && current) current.lines.push(line);
    else return null;
  }
  return entries;
}

/**
 * The breakages seen in public files, each taken as a string:
 * - `tools: *` (YAML reads `*` as an alias);
 * - `argument-hint: [x] | --y` (a flow list followed by text);
 * - an unquoted value containing `: ` (YAML reads a nested key), with indented continuation lines.
 */
function recoverEntry(entry: Entry): { field: Field; assumed: string } | null {
  const first = entry.lines[0] ?? "";
  const colon = first.indexOf(":", first.startsWith('"') || first.startsWith("'") ? entry.key.length + 2 : 0);
  const afterColon = first.slice(colon + 1);
  const valueColumn = colon + 2 + (afterColon.length - afterColon.trimStart().length);
  const head = stripComment(afterColon).trim();
  const rest = entry.lines
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (head === "" || /^["'|>]/.test(head)) return null;
  let assumed: string;
  if (head === "*") {
    assumed = `'${entry.key}: ${head}' is not valid YAML (a bare '*' starts an alias); took it as the text '${head}'`;
  } else if (head.startsWith("[") || head.startsWith("{")) {
    assumed = `the value of '${entry.key}' starts like a YAML ${head.startsWith("[") ? "list" : "map"} but has more text after it; took the raw text as a string`;
  } else if (/:\s/.test(head)) {
    assumed = `the value of '${entry.key}' contains ': ', which YAML reads as a nested key; took the whole value as a string (quote it to silence this)`;
  } else {
    return null;
  }
  const value = [head, ...rest].join(" ");
  const line = entry.start + 1;
  const pos = { line, column: valueColumn };
  return {
    assumed,
    field: {
      key: entry.key,
      keyPos: { line, column: 1 },
      valuePos: pos,
      value,
      node: null,
      source: value,
      locate: () => pos,
    },
  };
}

/** Drops a trailing YAML comment (` #…`) from a plain value. */
function stripComment(s: string): string {
  const i = s.search(/\s#/);
  return i === -1 ? s : s.slice(0, i);
}
