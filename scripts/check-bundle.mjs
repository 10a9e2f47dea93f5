// Writes dist/bundle/check.cjs: `agentmd check` (src/cli/check-entry.ts) as one CommonJS file, which
// the launcher (bin/agentmd.js) compiles with a V8 code cache on a Node that has no compile cache
// for ES modules (Node 20): one file read and no module resolution, instead of thirty-odd ES modules.
// What the check's modules load with its first use (the bash grammar's parser, the JSON Schema
// compiler, and what only the built-in tools' work needs: the HTML reader, .gitignore matching) is
// written beside it as its own file, read only when used, so check.cjs holds what a check runs.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { EXTERNAL } from "./bundle-external.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const OUT = `${root}/dist/bundle`;

/** Settings shared by check.cjs and the files it loads lazily. */
const common = {
  absWorkingDir: root,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // import.meta.url, which modules use to find files beside them, is the file's own URL.
  define: { "import.meta.url": "__agentmdModuleUrl" },
  banner: { js: 'const __agentmdModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  external: EXTERNAL,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
};

/** The lazy files, by the module they start from (a source file or a package's entry). */
const lazy = new Map();
const ENTRY = "src/cli/check-entry.ts";

/**
 * A module loaded with its first use (not one of Node's) becomes a require() of its own file beside;
 * the entry's own import of the command is the command, and stays in.
 */
const splitDynamicImports = {
  name: "split-dynamic-imports",
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      // A source module require()s a package only to load it with its first use (src/shared/ajv.ts).
      const lazily =
        args.kind === "dynamic-import" ||
        (args.kind === "require-call" && !args.importer.includes("node_modules"));
      if (!lazily || args.pluginData === "resolving") return undefined;
      if (args.path.startsWith("node:") || args.importer.endsWith(ENTRY)) return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: "resolving",
      });
      if (r.errors.length > 0 || r.external) return undefined;
      const name = lazy.get(r.path) ?? lazyName(r.path);
      lazy.set(r.path, name);
      return { path: `./${name}`, external: true };
    });
  },
};

/** `check-web-tree-sitter.cjs` for a package, `check-html-markdown.cjs` for a source module. */
function lazyName(file) {
  const pkg = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  const stem = (pkg ?? file.replace(/^.*\//, "").replace(/\.[^.]*$/, "")).replace(/[^a-z0-9-]/gi, "-");
  const name = `check-${stem}.cjs`;
  if ([...lazy.values()].includes(name)) throw new Error(`two lazily loaded modules would both be ${name}`);
  return name;
}

/** The source modules an output holds, for the check below. */
const inputsOf = (result) => Object.values(result.metafile.outputs).flatMap((o) => Object.keys(o.inputs));

const main = await build({
  ...common,
  // A script compiled by vm has no import(): dynamic imports become require() calls. (Not in the
  // files beside it, which require() loads: code there may hold a `var require` of its own.)
  supported: { "dynamic-import": false },
  entryPoints: [ENTRY],
  outfile: `${OUT}/check.cjs`,
  plugins: [splitDynamicImports],
});
const held = new Set(inputsOf(main));
for (let done = 0; done < lazy.size; done++) {
  const [entry, name] = [...lazy][done];
  const part = await build({
    ...common,
    entryPoints: [entry],
    outfile: `${OUT}/${name}`,
    plugins: [splitDynamicImports],
  });
  // A module in two files would be two modules, each with its own state: none may be.
  const shared = inputsOf(part).filter((i) => held.has(i));
  if (shared.length > 0)
    throw new Error(`${name} and another check file would both hold ${shared.join(", ")}`);
  for (const i of inputsOf(part)) held.add(i);
}
