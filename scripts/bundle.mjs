// Bundles the CLI and the library into dist/bundle/ (entries sharing lazily loaded chunks, one
// per command): a user's `agentmd` resolves and reads a handful of files at start-up instead of
// hundreds, and an installed package needs none of the dependencies the bundle carries. What only a
// few runs need (the MCP SDK with zod, OpenTelemetry's SDK and exporters) is bundled too, into chunks
// loaded by a dynamic import when a run uses it. External: jiti (it finds files of its own at run
// time) and the cloud providers' SDKs (optional peers a user installs).
import { copyFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { EXTERNAL } from "./bundle-external.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** An entry and all it imports, as one CommonJS file. */
function oneCommonJsFile(entry, outfile) {
  return build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    legalComments: "none",
    logLevel: "warning",
  });
}

rmSync(`${root}/dist/bundle`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The library is bundled too (package.json's exports): an installed package needs none of the
  // dependencies the bundle carries, and the CLI and the library share their chunks.
  entryPoints: { cli: "src/cli/main.ts", index: "src/index.ts" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  external: EXTERNAL,
  // CommonJS dependencies bundled into ESM still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
// help.cjs: what --version and --help print, which the launcher (CommonJS) answers without loading
// the CLI, or setting up Node's ES module loader.
await oneCommonJsFile("src/cli/help.ts", "dist/bundle/help.cjs");
// `check` alone, as one CommonJS file (src/cli/check-entry.ts; scripts/check-bundle.mjs): Node 20
// has no compile cache for ES modules, and the launcher loads this file with a V8 code cache instead.
await import("./check-bundle.mjs");
// The surface validators precompiled beside the loader are read relative to the module that reads them.
copyFileSync(`${root}/dist/definitions/surface-validators.cjs`, `${root}/dist/bundle/surface-validators.cjs`);
// The builtin tools' schema gates likewise (src/tools/schema-gate.ts).
copyFileSync(`${root}/dist/tools/gate-validators.cjs`, `${root}/dist/bundle/gate-validators.cjs`);
// The shell parser's two .wasm files ship alone, not their packages (src/permissions/shell/
// parse-shell.ts looks beside the module first): beside the bundle, and beside the built parser.
for (const wasm of ["web-tree-sitter/tree-sitter.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"]) {
  const name = wasm.split("/")[1];
  copyFileSync(`${root}/node_modules/${wasm}`, `${root}/dist/bundle/${name}`);
  copyFileSync(`${root}/node_modules/${wasm}`, `${root}/dist/permissions/shell/${name}`);
}
// WebFetch's HTML-to-Markdown worker (src/tools/builtin/html-markdown.ts starts it from beside the
// module) with turndown bundled in: the installed package has no turndown to require.
await oneCommonJsFile("src/tools/builtin/turndown-worker.cjs", "dist/bundle/turndown-worker.cjs");
copyFileSync(`${root}/dist/bundle/turndown-worker.cjs`, `${root}/dist/tools/builtin/turndown-worker.cjs`);
// The library's declarations, one self-contained dist/bundle/index.d.ts (scripts/bundle-types.mjs).
await import("./bundle-types.mjs");
console.log("bundled the CLI into dist/bundle/ and the library's declarations into dist/bundle/index.d.ts");
