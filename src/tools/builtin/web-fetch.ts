import { judgesUrl } from "../../permissions/subject-specs.js";
import { defineTool, fail, ok } from "../define-tool.js";
import type { Tool } from "../types.js";

export const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024;
export const WEBFETCH_MAX_CHARS = 100_000;
export const WEBFETCH_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

const schema = {
  type: "object",
  properties: {
    url: { type: "string", description: "An http or https URL." },
    prompt: { type: "string", description: "What to look for in the page (shown with the result)." },
  },
  required: ["url"],
} as const;

export interface WebFetchOptions {
  readonly fetch?: typeof globalThis.fetch;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

/**
 * WebFetch: the text of a web page (HTML reduced to text). Redirects within the same host are
 * followed; a redirect to another host is reported instead, so that the next fetch is judged by
 * the permission rules for that host.
 */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? WEBFETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? WEBFETCH_MAX_BYTES;
  return defineTool<typeof schema>({
    name: "WebFetch",
    description: `Fetches an http(s) URL and returns its text (HTML as Markdown: links, tables and code kept; at most ${WEBFETCH_MAX_CHARS} characters). A redirect to another host is reported, not followed.`,
    inputSchema: schema,
    permission: judgesUrl("url"),
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        return fail(`'${input.url}' is not a URL.`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:")
        return fail(`Only http and https URLs can be fetched, not ${url.protocol}`);
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      let res: Response;
      for (let hop = 0; ; hop++) {
        try {
          res = await doFetch(url, {
            redirect: "manual",
            signal,
            headers: {
              "user-agent": "agentmd",
              accept: "text/html, text/*;q=0.9, application/json;q=0.8, */*;q=0.1",
            },
          });
        } catch (e) {
          if (ctx.signal.aborted) return fail("Interrupted.");
          if (signal.aborted) return fail(`Fetching ${url.href} timed out after ${timeoutMs} ms.`);
          return fail(
            `Fetching ${url.href} failed: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}.`,
          );
        }
        const location = res.headers.get("location");
        if (res.status < 300 || res.status >= 400 || !location) break;
        await res.body?.cancel();
        const next = new URL(location, url);
        if (next.host !== url.host) {
          return ok(
            `${url.href} redirects (${res.status}) to another host: ${next.href}\nFetch that URL to follow it.`,
          );
        }
        if (hop >= MAX_REDIRECTS) return fail(`${input.url} redirects more than ${MAX_REDIRECTS} times.`);
        url = next;
      }
      const type = (res.headers.get("content-type") ?? "").toLowerCase();
      const textual = type === "" || /^text\/|json|xml|javascript|yaml/.test(type);
      if (!textual) {
        await res.body?.cancel();
        return fail(
          `${url.href} is ${type} (${res.headers.get("content-length") ?? "unknown size"} bytes), not text.`,
        );
      }
      // The page's decoding and conversion (iconv-lite, turndown) load with the first page read.
      const page = await import("./html-markdown.js");
      let body: { text: string; cut: boolean };
      try {
        body = await page.readCapped(res, maxBytes);
      } catch (e) {
        if (ctx.signal.aborted) return fail("Interrupted.");
        if (signal.aborted) return fail(`Fetching ${url.href} timed out after ${timeoutMs} ms.`);
        return fail(`Reading ${url.href} failed: ${(e as Error).message}.`);
      }
      const html = type.includes("html") || /^\s*<(!doctype html|html)/i.test(body.text);
      // Markdown keeps links, tables and code; a page turndown cannot convert in time is flat text.
      let text = html ? ((await page.htmlToMarkdown(body.text)) ?? page.htmlToText(body.text)) : body.text;
      const notes: string[] = [];
      if (body.cut) notes.push(`[the page is larger than ${maxBytes} bytes; only the start was read]`);
      if (text.length > WEBFETCH_MAX_CHARS) {
        notes.push(`[text cut at ${WEBFETCH_MAX_CHARS} of ${text.length} characters]`);
        text = text.slice(0, WEBFETCH_MAX_CHARS);
      }
      const head = [
        `URL: ${url.href}`,
        `Status: ${res.status}`,
        ...(input.prompt ? [`Prompt: ${input.prompt}`] : []),
      ].join("\n");
      const result = `${head}\n\n${text}${notes.length ? `\n${notes.join("\n")}` : ""}`;
      return res.ok ? ok(result) : fail(result);
    },
  });
}
