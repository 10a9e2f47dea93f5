import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
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
  const require = createRequire(import.meta.url);
  const modules = { turndown: require.resolve("turndown"), gfm: require.resolve("turndown-plugin-gfm") };
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { html, modules } });
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

// Plain JavaScript, so that it runs the same from the sources and from dist/ (the modules are
// resolved by the caller, beside agentmd, not beside the folder it runs in).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const TurndownService = require(workerData.modules.turndown);
const { gfm } = require(workerData.modules.gfm);
try {
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  td.use(gfm);
  td.remove(["script", "style", "noscript", "template", "svg", "head", "title", "iframe", "object"]);
  parentPort.postMessage(td.turndown(workerData.html).replace(/\\n{3,}/g, "\\n\\n").trim());
} catch {
  parentPort.postMessage(null);
}
`;

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
