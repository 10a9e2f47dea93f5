// The worker that turns a fetched page's HTML into Markdown for WebFetch (see html-markdown.ts).
// Plain CommonJS so that it runs as it is from the sources; the build bundles it with turndown
// into dist/bundle/turndown-worker.cjs, so an installed agentmd needs no turndown package.
const { parentPort, workerData } = require("node:worker_threads");
const TurndownService = require("turndown");
const { gfm } = require("turndown-plugin-gfm");

try {
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  td.use(gfm);
  td.remove(["script", "style", "noscript", "template", "svg", "head", "title", "iframe", "object"]);
  parentPort.postMessage(
    td
      .turndown(workerData.html)
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
  );
} catch {
  parentPort.postMessage(null);
}
