import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { htmlToMarkdown, htmlToText } from "../../../src/tools/builtin/html-markdown.js";
import { createWebFetchTool } from "../../../src/tools/index.js";
import { run, text, toolContext } from "../../support/tools.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        "<html><head><title>t</title><style>p{}</style></head><body><h1>Hello</h1><p>A &amp; B&#33;</p><script>evil()</script><ul><li>one</li><li>two</li></ul></body></html>",
      );
    } else if (url === "/doc") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        '<html><body><h2>Caf&eacute; &amp; co</h2><p>See <a href="https://example.org/docs">the docs</a>.</p><table><tr><th>flag</th><th>meaning</th></tr><tr><td>--fast</td><td>skips checks</td></tr></table><pre><code class="language-sh">npm test &gt; out</code></pre></body></html>',
      );
    } else if (url === "/latin1") {
      res.writeHead(200, { "content-type": "text/html; charset=iso-8859-1" });
      res.end(Buffer.from("<html><body><p>caf\xe9 cr\xe8me</p></body></html>", "latin1"));
    } else if (url === "/meta") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        Buffer.from(
          '<html><head><meta charset="windows-1252"></head><body><p>\x93quoted\x94</p></body></html>',
          "latin1",
        ),
      );
    } else if (url === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"a":1}');
    } else if (url === "/missing") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    } else if (url === "/hop") {
      res.writeHead(302, { location: "/json" });
      res.end();
    } else if (url === "/away") {
      res.writeHead(301, { location: "http://localhost:1/elsewhere" });
      res.end();
    } else if (url === "/loop") {
      res.writeHead(302, { location: "/loop" });
      res.end();
    } else if (url === "/image") {
      res.writeHead(200, { "content-type": "image/png", "content-length": "4" });
      res.end(Buffer.from([1, 2, 3, 4]));
    } else if (url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(3000));
    } else if (url === "/hang") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    } else {
      res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const fetchTool = createWebFetchTool({ timeoutMs: 500, maxBytes: 1000 });

describe("WebFetch against a local server", () => {
  it("gives HTML as Markdown: no head, style or script", async () => {
    const r = await run(fetchTool, { url: `${base}/page`, prompt: "the heading" }, toolContext("/"));
    expect(r).toEqual({
      content: `URL: ${base}/page\nStatus: 200\nPrompt: the heading\n\n# Hello\n\nA & B!\n\n-   one\n-   two`,
      isError: false,
    });
  });

  it("keeps links, tables and code, with every entity decoded", async () => {
    const md = text(
      await run(createWebFetchTool({ timeoutMs: 5000 }), { url: `${base}/doc` }, toolContext("/")),
    );
    expect(md).toContain("## Café & co");
    expect(md).toContain("[the docs](https://example.org/docs)");
    expect(md).toMatch(/\| flag \| meaning \|\n\| --- \| --- \|\n\| \\?--fast \| skips checks \|/);
    expect(md).toContain("```sh\nnpm test > out\n```");
  });

  it("reads a page in its own charset: the header's, else its meta tag's", async () => {
    const tool = createWebFetchTool({ timeoutMs: 5000 });
    expect(text(await run(tool, { url: `${base}/latin1` }, toolContext("/")))).toContain("café crème");
    expect(text(await run(tool, { url: `${base}/meta` }, toolContext("/")))).toContain("\u201cquoted\u201d");
  });

  it("returns JSON as text, follows a same-host redirect, and reports one to another host", async () => {
    expect(text(await run(fetchTool, { url: `${base}/hop` }, toolContext("/")))).toBe(
      `URL: ${base}/json\nStatus: 200\n\n{"a":1}`,
    );
    expect(await run(fetchTool, { url: `${base}/away` }, toolContext("/"))).toEqual({
      content: `${base}/away redirects (301) to another host: http://localhost:1/elsewhere\nFetch that URL to follow it.`,
      isError: false,
    });
    expect(text(await run(fetchTool, { url: `${base}/loop` }, toolContext("/")))).toBe(
      `${base}/loop redirects more than 5 times.`,
    );
  });

  it("marks HTTP errors, refuses binary content and non-http URLs", async () => {
    const missing = await run(fetchTool, { url: `${base}/missing` }, toolContext("/"));
    expect([missing.isError, text(missing)]).toEqual([true, `URL: ${base}/missing\nStatus: 404\n\nnot here`]);
    expect(text(await run(fetchTool, { url: `${base}/image` }, toolContext("/")))).toBe(
      `${base}/image is image/png (4 bytes), not text.`,
    );
    expect(text(await run(fetchTool, { url: "file:///etc/passwd" }, toolContext("/")))).toBe(
      "Only http and https URLs can be fetched, not file:",
    );
    expect(text(await run(fetchTool, { url: "not a url" }, toolContext("/")))).toBe(
      "'not a url' is not a URL.",
    );
  });

  it("caps the size it reads and the time it waits", async () => {
    const big = text(await run(fetchTool, { url: `${base}/big` }, toolContext("/")));
    expect(big).toContain("[the page is larger than 1000 bytes; only the start was read]");
    const hang = await run(fetchTool, { url: `${base}/hang` }, toolContext("/"));
    expect(hang.isError).toBe(true);
    expect(text(hang)).toBe(`Fetching ${base}/hang timed out after 500 ms.`);
  });

  it("stops when the run is aborted", async () => {
    const ac = new AbortController();
    const pending = run(
      createWebFetchTool({ timeoutMs: 10_000 }),
      { url: `${base}/hang` },
      toolContext("/", ac.signal),
    );
    ac.abort();
    expect(await pending).toEqual({ content: "Interrupted.", isError: true });
  });

  it("reduces hostile HTML (quadratic work here would take minutes)", () => {
    for (const page of ["<".repeat(200_000), "<head>".repeat(100_000), `<html>${"<".repeat(150_000)}`])
      expect(typeof htmlToText(page)).toBe("string");
    expect(htmlToText("a <b>bold</b> <br>line<p>para</p><script>x<y</script>end")).toBe(
      "a bold\nline\npara\nend",
    );
  });

  it("gives up on Markdown for a page too deep to convert in time (the tool then sends plain text)", async () => {
    expect(await htmlToMarkdown("<div>".repeat(5000), 50)).toBeUndefined();
    expect(await htmlToMarkdown("<p>a <em>b</em></p>")).toBe("a _b_");
  });

  it("decodes entities without reaching into Object.prototype", () => {
    expect(htmlToText("&constructor; &#x41; &#66; &nbsp;x &bogus; caf&eacute;")).toBe(
      "&constructor; A B x &bogus; café",
    );
  });
});
