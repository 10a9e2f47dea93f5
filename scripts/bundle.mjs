// Bundles the CLI into dist/bundle/ (one entry, lazily loaded chunks per command): a user's
// `agentmd` resolves and reads a handful of files at start-up instead of hundreds. The library
// (dist/index.js) stays unbundled. Dependencies that locate files of their own at run time
// (the bash grammar's .wasm, jiti) or that only a few runs need (the MCP SDK) stay external.
import { copyFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
rmSync(`${root}/dist/bundle`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: "src/cli/main.ts" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  external: [
    "web-tree-sitter",
    "tree-sitter-bash",
    "jiti",
    "@modelcontextprotocol/sdk",
    "zod",
    // Optional packages a user installs beside agentmd to run on a cloud provider, loaded only when
    // it is chosen (src/model/providers/provider-packages.ts); never part of the bundle.
    "@anthropic-ai/bedrock-sdk",
    "@anthropic-ai/vertex-sdk",
    "@anthropic-ai/foundry-sdk",
    // Loaded only when tracing is on (src/tracing/tracing.ts).
    "@opentelemetry/core",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/semantic-conventions",
  ],
  // CommonJS dependencies bundled into ESM still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
// The surface validators precompiled beside the loader are read relative to the module that reads them.
copyFileSync(`${root}/dist/definitions/surface-validators.cjs`, `${root}/dist/bundle/surface-validators.cjs`);
console.log("bundled the CLI into dist/bundle/");
