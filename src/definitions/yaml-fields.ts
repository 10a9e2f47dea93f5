import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type ParsedNode,
  parseDocument,
  type YAMLMap,
} from "yaml";

/** A 1-based line and column in the markdown file. */
export interface Pos {
  readonly line: number;
  readonly column: number;
}

/** One top-level frontmatter key with its value, as plain data and as YAML source. */
export interface Field {
  readonly key: string;
  readonly keyPos: Pos;
  readonly valuePos: Pos;
  /** Plain data: strings, numbers, booleans, null, arrays and prototype-less objects. */
  readonly value: unknown;
  /** The value's YAML node; null when the value was empty or recovered as raw text. */
  readonly node: ParsedNode | null;
  /** The value exactly as written. */
  readonly source: string;
  /** Position of a node inside the value (`["PreToolUse", 0, "command"]`); the value's own when not found. */
  locate(path: readonly (string | number)[]): Pos;
}

export interface ParsedYaml {
  readonly fields: Field[];
  /** YAML errors that were not recovered; when non-empty the fields are incomplete. */
  readonly errors: { readonly pos: Pos; readonly message: string; readonly code: string }[];
}

const MAX_ALIAS_EXPANSIONS = 64;
const MAX_DEPTH = 32;

/**
 * Parses YAML source strictly (YAML 1.2, unique keys) into top-level fields.
 * `lineOffset` is added to every reported line, so that a snippet of a larger file reports
 * positions in that file. Contract: never throws.
 */
export function parseYamlFields(src: string, lineOffset = 0): ParsedYaml {
  const lc = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(src, { lineCounter: lc, uniqueKeys: true, prettyErrors: false, strict: true });
  } catch (e) {
    return {
      fields: [],
      errors: [{ pos: { line: lineOffset + 1, column: 1 }, message: String(e), code: "yaml" }],
    };
  }
  const posOf = (offset: number): Pos => {
    const { line, col } = lc.linePos(offset);
    return { line: Math.max(line, 1) + lineOffset, column: Math.max(col, 1) };
  };
  if (doc.errors.length > 0) {
    return {
      fields: [],
      errors: doc.errors.map((e) => ({
        pos: posOf(e.pos[0]),
        message: firstLine(e.message),
        code: e.code,
      })),
    };
  }
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { fields: [], errors: [] };
  if (!isMap(contents)) {
    return {
      fields: [],
      errors: [
        {
          pos: posOf(contents.range[0]),
          message: "frontmatter must be a map of 'key: value' lines",
          code: "NOT_A_MAP",
        },
      ],
    };
  }
  const fields: Field[] = [];
  const aliasBudget = { left: MAX_ALIAS_EXPANSIONS };
  try {
    collectFields(contents, { doc, src, budget: aliasBudget }, posOf, lineOffset, fields);
  } catch (e) {
    if (!(e instanceof TooManyAliases)) throw e;
    return {
      fields: [],
      errors: [
        {
          pos: { line: lineOffset + 1, column: 1 },
          message: `the frontmatter expands more than ${MAX_ALIAS_EXPANSIONS} YAML aliases; write the values out`,
          code: "TOO_MANY_ALIASES",
        },
      ],
    };
  }
  return { fields, errors: [] };
}

function collectFields(
  contents: YAMLMap.Parsed,
  cx: PlainContext,
  posOf: (offset: number) => Pos,
  lineOffset: number,
  fields: Field[],
): void {
  const { src } = cx;
  for (const pair of contents.items) {
    const keyNode = pair.key as ParsedNode | null;
    const valueNode = (pair.value as ParsedNode | null) ?? null;
    const key = keyNode && isScalar(keyNode) ? String(keyNode.value) : keyNode ? sourceOf(src, keyNode) : "";
    const keyPos = keyNode ? posOf(keyNode.range[0]) : { line: lineOffset + 1, column: 1 };
    const valuePos = valueNode ? posOf(valueNode.range[0]) : keyPos;
    fields.push({
      key,
      keyPos,
      valuePos,
      value: valueNode ? toPlain(valueNode, cx, 0) : null,
      node: valueNode,
      source: valueNode ? sourceOf(src, valueNode) : "",
      locate(path) {
        if (!valueNode || path.length === 0) return valuePos;
        const inner = isMap(valueNode) || isSeq(valueNode) ? valueNode.getIn(path, true) : undefined;
        return inner && typeof inner === "object" && "range" in inner && Array.isArray(inner.range)
          ? posOf((inner as ParsedNode).range[0])
          : valuePos;
      },
    });
  }
}

function sourceOf(src: string, node: ParsedNode): string {
  return src.slice(node.range[0], node.range[1]).trim();
}

function firstLine(message: string): string {
  const line = message.split("\n", 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, "");
}

/**
 * Converts a YAML node to plain data. Maps become prototype-less objects, so a key such as
 * `__proto__` is an ordinary own property. Aliases expand a bounded number of times.
 */
class TooManyAliases extends Error {}

interface PlainContext {
  readonly doc: Document;
  readonly src: string;
  readonly budget: { left: number };
}

function toPlain(node: Node | null, cx: PlainContext, depth: number): unknown {
  if (node === null || depth > MAX_DEPTH) return null;
  if (isScalar(node)) return node.value;
  if (isAlias(node)) {
    cx.budget.left -= 1;
    if (cx.budget.left < 0) throw new TooManyAliases();
    return toPlain(node.resolve(cx.doc) ?? null, cx, depth + 1);
  }
  if (isSeq(node)) return node.items.map((item) => toPlain(item as Node | null, cx, depth + 1));
  if (isMap(node)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const pair of node.items) {
      const k = pair.key as ParsedNode | null;
      const name = k === null ? "" : isScalar(k) ? String(k.value) : sourceOf(cx.src, k);
      out[name] = toPlain(pair.value as Node | null, cx, depth + 1);
    }
    return out;
  }
  return null;
}
