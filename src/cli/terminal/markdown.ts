import { decodeHTML } from "entities";
import { Lexer, type Token, type Tokens } from "marked";
import { highlightCode } from "./highlight.js";
import { printable } from "./printable.js";
import { widthOf, wrapHanging } from "./width.js";

/**
 * The model's Markdown as a terminal shows it: bold, italics, inline code, fenced code (highlighted
 * by highlight.js), lists, headings, quotes, aligned tables and links with their address, laid out
 * for `width` columns. `marked` parses (GFM); the layout is ours so that it follows the width,
 * wide characters and the run's indentation. With `color` off the same layout comes out without a
 * single escape sequence (NO_COLOR).
 */
export interface MarkdownOptions {
  readonly width: number;
  readonly color: boolean;
}

interface Ink {
  readonly bold: (s: string) => string;
  readonly italic: (s: string) => string;
  readonly strike: (s: string) => string;
  readonly underline: (s: string) => string;
  readonly code: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly heading: (s: string) => string;
  readonly color: boolean;
}

const sgr = (open: number, close: number) => (s: string) => (s ? `\x1b[${open}m${s}\x1b[${close}m` : s);
const same = (s: string) => s;
const INK: Ink = {
  bold: sgr(1, 22),
  italic: sgr(3, 23),
  strike: sgr(9, 29),
  underline: sgr(4, 24),
  code: sgr(36, 39),
  dim: sgr(2, 22),
  heading: (s) => sgr(1, 22)(sgr(35, 39)(s)),
  color: true,
};
const PLAIN: Ink = {
  bold: same,
  italic: same,
  strike: same,
  underline: same,
  code: (s) => `\`${s}\``,
  dim: same,
  heading: same,
  color: false,
};

/** Renders whole Markdown to lines (no trailing newline), blocks separated by one blank line. */
export function renderMarkdown(text: string, o: MarkdownOptions): string[] {
  return renderBlocks(Lexer.lex(printable(text)), o);
}

/** Blocks one after the other, a blank line between them unless `tight` (a tight list's item). */
function renderBlocks(tokens: readonly Token[], o: MarkdownOptions, tight = false): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    const lines = block(t, o, o.color ? INK : PLAIN);
    if (lines.length === 0) continue;
    if (out.length > 0 && !tight) out.push("");
    out.push(...lines);
  }
  return out;
}

function block(t: Token, o: MarkdownOptions, ink: Ink): string[] {
  const width = Math.max(10, o.width);
  switch (t.type) {
    case "space":
      return [];
    case "heading": {
      const h = t as Tokens.Heading;
      const text = inline(h.tokens, ink);
      return wrapHanging("", h.depth <= 2 ? ink.heading(text) : ink.bold(text), width);
    }
    case "paragraph":
      return wrapHanging("", inline((t as Tokens.Paragraph).tokens, ink), width);
    case "text": {
      const x = t as Tokens.Text;
      return wrapHanging("", x.tokens ? inline(x.tokens, ink) : decodeHTML(x.text), width);
    }
    case "code": {
      const c = t as Tokens.Code;
      const lines = (ink.color ? highlightCode(c.text, c.lang) : c.text).split("\n");
      return lines.map((l) => (l ? `  ${l}` : ""));
    }
    case "blockquote": {
      const inner = renderBlocks((t as Tokens.Blockquote).tokens, { ...o, width: width - 2 });
      return inner.map((l) => `${ink.dim("│")} ${ink.italic(l)}`);
    }
    case "hr":
      return [ink.dim("─".repeat(Math.min(width, 40)))];
    case "list":
      return list(t as Tokens.List, o);
    case "table":
      return table(t as Tokens.Table, width, ink);
    case "html":
      return wrapHanging("", (t as Tokens.HTML).text.trimEnd(), width);
    default:
      return "raw" in t && typeof t.raw === "string" ? wrapHanging("", t.raw.trimEnd(), width) : [];
  }
}

function list(l: Tokens.List, o: MarkdownOptions): string[] {
  const start = typeof l.start === "number" ? l.start : 1;
  const last = start + l.items.length - 1;
  const out: string[] = [];
  l.items.forEach((item, i) => {
    const mark = item.task
      ? item.checked
        ? "☑"
        : "☐"
      : l.ordered
        ? `${start + i}.`.padStart(String(last).length + 1)
        : "•";
    const prefix = `${mark} `;
    const inner = renderBlocks(
      item.tokens.filter((x) => x.type !== "checkbox"),
      { ...o, width: o.width - widthOf(prefix) },
      !item.loose,
    );
    const hang = " ".repeat(widthOf(prefix));
    if (l.loose && i > 0) out.push("");
    inner.forEach((line, j) => {
      out.push(j === 0 ? `${prefix}${line}` : line === "" ? "" : `${hang}${line}`);
    });
  });
  return out;
}

/** A table whose columns are as wide as their widest cell, shrunk (cells wrapped) to fit the width. */
function table(t: Tokens.Table, width: number, ink: Ink): string[] {
  const header = t.header.map((c) => ink.bold(inline(c.tokens, ink)));
  const rows = t.rows.map((r) => r.map((c) => inline(c.tokens, ink)));
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(1, ...all.map((r) => widthOf(r[i] ?? ""))));
  // Borders: "│ " before each column, " │" after the last: 3 per column, plus 1.
  const room = width - (3 * widths.length + 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= 3) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const rule = (l: string, m: string, r: string) =>
    ink.dim(`${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}`);
  const row = (cells: string[]): string[] => {
    const wrapped = widths.map((w, i) => wrapHanging("", cells[i] ?? "", w));
    const height = Math.max(...wrapped.map((c) => c.length));
    return Array.from({ length: height }, (_, k) => {
      const parts = widths.map((w, i) => pad(wrapped[i]?.[k] ?? "", w, t.align[i] ?? null));
      return `${ink.dim("│")} ${parts.join(` ${ink.dim("│")} `)} ${ink.dim("│")}`;
    });
  };
  return [
    rule("┌", "┬", "┐"),
    ...row(header),
    rule("├", "┼", "┤"),
    ...rows.flatMap(row),
    rule("└", "┴", "┘"),
  ];
}

function pad(s: string, w: number, align: "center" | "left" | "right" | null): string {
  const gap = Math.max(0, w - widthOf(s));
  if (align === "right") return `${" ".repeat(gap)}${s}`;
  if (align === "center") return `${" ".repeat(gap >> 1)}${s}${" ".repeat(gap - (gap >> 1))}`;
  return `${s}${" ".repeat(gap)}`;
}

function inline(tokens: readonly Token[] | undefined, ink: Ink): string {
  if (!tokens) return "";
  return tokens.map((t) => span(t, ink)).join("");
}

function span(t: Token, ink: Ink): string {
  switch (t.type) {
    case "strong":
      return ink.bold(inline((t as Tokens.Strong).tokens, ink));
    case "em":
      return ink.italic(inline((t as Tokens.Em).tokens, ink));
    case "del":
      return ink.strike(inline((t as Tokens.Del).tokens, ink));
    case "codespan":
      return ink.code(decodeHTML((t as Tokens.Codespan).text));
    case "br":
      return "\n";
    case "link": {
      const l = t as Tokens.Link;
      const text = inline(l.tokens, ink);
      // The address is shown beside the words (a terminal cannot follow a hidden link).
      return l.href === l.text || l.href === `mailto:${l.text}` || l.autolink
        ? ink.underline(l.href)
        : `${ink.underline(text)} ${ink.dim(`(${l.href})`)}`;
    }
    case "image": {
      const i = t as Tokens.Image;
      return ink.dim(`[image: ${i.text || i.href}] (${i.href})`);
    }
    case "text": {
      const x = t as Tokens.Text;
      return x.tokens ? inline(x.tokens, ink) : decodeHTML(x.text);
    }
    case "escape":
      return (t as Tokens.Escape).text;
    default:
      return "raw" in t && typeof t.raw === "string" ? t.raw : "";
  }
}

/**
 * Markdown that streams in, rendered a finished block at a time: a block is finished when the
 * next one starts or a blank line follows it (a list: when the next block starts), and a heading,
 * a rule or a closed code fence as soon as its line ends;
 * `flush` renders what is left (the model's message ended, a tool call starts). Lines go to `line`.
 */
export function markdownStream(
  options: () => MarkdownOptions,
  line: (text: string) => void,
  live?: LivePreview,
): { push(text: string): void; flush(): void } {
  let pending = "";
  let blocks = 0;
  const preview = live ? livePreview(live, options) : undefined;
  const emit = (tokens: readonly Token[]) => {
    preview?.erase();
    for (const t of tokens) {
      const o = options();
      const lines = block(t, o, o.color ? INK : PLAIN);
      if (lines.length === 0) continue;
      if (blocks++ > 0) line("");
      for (const l of lines) line(l);
    }
  };
  const take = () => {
    const end = pending.lastIndexOf("\n");
    if (end === -1) return;
    const complete = pending.slice(0, end + 1);
    const tokens = Lexer.lex(complete);
    // Only when the tokens account for the text exactly is a prefix of it known to be done.
    if (tokens.map((t) => t.raw).join("") !== complete) return;
    let done = tokens.length;
    while (done > 0 && tokens[done - 1]?.type === "space") done--;
    const lastBlock = tokens[done - 1];
    // A blank line ends a block, but for a list (its next item may follow it).
    const blankAfter = done < tokens.length && lastBlock?.type !== "list";
    if (lastBlock && !blankAfter && !closedOnItsLine(lastBlock)) done--;
    if (done <= 0) return;
    const taken = tokens.slice(0, done);
    // The blank lines after the blocks go with them (blocks get a blank line between them anyway).
    let used = done;
    while (tokens[used]?.type === "space") used++;
    pending = pending.slice(
      tokens
        .slice(0, used)
        .map((t) => t.raw)
        .join("").length,
    );
    emit(taken);
  };
  return {
    push(text) {
      pending += printable(text);
      take();
      preview?.show(pending);
    },
    flush() {
      if (pending.trim() !== "") emit(Lexer.lex(pending));
      preview?.erase();
      pending = "";
      blocks = 0;
    },
  };
}

/** Where the unfinished block is shown as it streams (a terminal), before it is laid out. */
export interface LivePreview {
  write(text: string): void;
  /** What starts each line of the run's text (a subagent's indentation). */
  readonly indent: string;
}

/** The most rows of an unfinished block shown as it streams; the rest waits for the block's end. */
const PREVIEW_ROWS = 8;

/**
 * The block being written, shown as the model writes it (so a long paragraph is seen growing),
 * then erased and replaced by its laid-out form once it is finished. Only what it wrote itself is
 * erased, and at most `PREVIEW_ROWS` rows, so the erase never reaches above the screen.
 */
function livePreview(live: LivePreview, options: () => MarkdownOptions) {
  let shown = "";
  let frozen = false;
  const rowsOf = (text: string) => {
    const columns = options().width + widthOf(live.indent);
    return text
      .split("\n")
      .reduce((n, l) => n + Math.max(1, Math.ceil(widthOf(`${live.indent}${l}`) / columns)), 0);
  };
  return {
    show(text: string) {
      if (frozen || !text.startsWith(shown) || text === shown || text.trim() === "") return;
      if (rowsOf(text) > PREVIEW_ROWS) {
        frozen = true;
        return;
      }
      const delta = text.slice(shown.length);
      const startsLine = shown === "" || shown.endsWith("\n");
      live.write(`${startsLine ? live.indent : ""}${delta.replace(/\n(?=.)/g, `\n${live.indent}`)}`);
      shown = text;
    },
    erase() {
      if (shown !== "") {
        const up = rowsOf(shown) - 1;
        live.write(`\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J`);
      }
      shown = "";
      frozen = false;
    },
  };
}

/** A block that nothing after it can continue: a heading, a rule, a code fence that is closed. */
function closedOnItsLine(t: Token): boolean {
  if (t.type === "heading" || t.type === "hr") return true;
  return (
    t.type === "code" && /^ {0,3}(`{3,}|~{3,})/.test(t.raw) && /\n {0,3}(`{3,}|~{3,})[ \t]*\n?$/.test(t.raw)
  );
}
