// A web page read for WebFetch: its bytes decoded by their charset, its HTML made Markdown or text.
// WebFetch loads this module with the first page it reads, so that a command that only lists the
// tools (check, tools, audit) never loads iconv-lite's tables or the entity decoder.
import { Worker } from "node:worker_threads";
import { decodeHTML } from "entities";
import iconv from "iconv-lite";

/** A page that turndown has not turned into Markdown by then is given as plain text instead. */
export const HTML_MARKDOWN_TIMEOUT_MS = 10_000;

/**
 * HTML to Markdown by turndown (with its GFM plugin: tables, strikethrough), in a worker thread:
 * its DOM work grows faster than the page on deep nesting, and a hostile page must block only the
 * worker, which is stopped after the time limit. Scripts, styles and the head are dropped; links,
 * tables and code blocks are kept; entities are decoded by the parser. Resolves undefined when the
 * page could not be converted in time (the caller falls back to plain text).
 */
export function htmlToMarkdown(
  html: string,
  timeoutMs = HTML_MARKDOWN_TIMEOUT_MS,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, { workerData: { html } });
    const finish = (md: string | undefined) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(md);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    worker.once("message", (md: string | null) => finish(md ?? undefined));
    worker.once("error", () => finish(undefined));
  });
}

// Beside this module in both shapes: the source file itself in src/, and in dist/bundle/ the
// build's copy with turndown bundled in (the installed package has no turndown to require).
const WORKER = new URL("./turndown-worker.cjs", import.meta.url);

/**
 * The page's charset: the Content-Type header's, else a `<meta charset>` (or http-equiv) in its
 * first 2 KB, else UTF-8, decoded by iconv-lite (Node's own TextDecoder reads windows-1252 as
 * ISO-8859-1 without full ICU). A charset it does not know is read as UTF-8.
 */
export function decodePage(bytes: Uint8Array, contentType: string): string {
  const head = Buffer.from(bytes.subarray(0, 2048)).toString("latin1");
  const label =
    /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    "utf-8";
  return iconv.decode(Buffer.from(bytes), iconv.encodingExists(label) ? label : "utf-8");
}

/** The body of a response, at most `maxBytes` of it, decoded by its charset. */
export async function readCapped(res: Response, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: "", cut: false };
  const type = res.headers.get("content-type") ?? "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) {
      cut = true;
      await reader.cancel();
      break;
    }
  }
  return { text: decodePage(Buffer.concat(chunks).subarray(0, maxBytes), type), cut };
}

/** Elements whose content is not text. */
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "head"]);
/** Elements whose end is a line break. */
const BLOCKS = new Set([
  "p",
  "div",
  "li",
  "tr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "section",
  "article",
  "header",
  "footer",
  "pre",
  "blockquote",
  "table",
  "ul",
  "ol",
]);

/**
 * HTML reduced to readable text: no scripts, styles or tags; block ends become line breaks.
 * One pass with indexOf, so that its time is linear in the page (a page of unclosed `<` or
 * `<head>` tags made a regular-expression version quadratic, and it runs on the event loop).
 */
export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      parts.push(html.slice(i));
      break;
    }
    if (lt > i) parts.push(html.slice(i, lt));
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf(">", lt + 1);
    if (gt === -1) {
      parts.push(html.slice(lt));
      break;
    }
    const m = /^\/?([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(lt + 1, Math.min(gt, lt + 40)));
    const name = m?.[1]?.toLowerCase() ?? "";
    const closing = html[lt + 1] === "/";
    i = gt + 1;
    if (!closing && SKIPPED.has(name)) {
      const end = lower.indexOf(`</${name}`, i);
      const endGt = end === -1 ? -1 : html.indexOf(">", end);
      i = endGt === -1 ? html.length : endGt + 1;
    } else if (name === "br" || (closing && BLOCKS.has(name))) {
      parts.push("\n");
    } else if (BLOCKS.has(name) && name !== "li" && !/\n\s*$/.test(parts[parts.length - 1] ?? "\n")) {
      parts.push("\n");
    } else if (!closing && name === "li") {
      parts.push("- ");
    }
  }
  return (
    parts
      .join("")
      // Every HTML entity (é, &eacute;, &#233;), as the HTML standard reads them.
      .replace(/&[#a-z0-9]{1,32};/gi, (entity) => decodeHTML(entity).replace(/\u00a0/g, " "))
      .replace(/[ \t\f\v\r]+/g, " ")
      .replace(/ ?\n ?/g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}
