// The library's declarations as one self-contained file: dist/bundle/index.d.ts, bundled from the per-module
// declarations tsc writes, names no package. A user's `tsc --skipLibCheck false` then reads one file
// of ours instead of every dependency's declarations (the Anthropic SDK's, zod's through the MCP
// SDK's, OpenTelemetry's, ...), and none of those packages is installed for the types' sake.
// - The Messages API's shapes the public types name (src/model/messages.ts) are copied out of the
//   Anthropic SDK's declarations: those interfaces alone, not the client around them.
// - json-schema-to-ts (defineTool's FromSchema) is types only: inlined whole.
// - Everything else a module's declarations import is left out by tree-shaking: the public types
//   do not name it. If they ever do, the build fails and names the import.
import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
// tsc's declaration of the entry, read; the bundled file is written beside the bundle, not over
// it: `npm run typecheck` (tsc -b) reads tsc's own declarations, which must stay tsc's.
const ENTRY = path.join(root, "dist/index.d.ts");
const OUT = path.join(root, "dist/bundle/index.d.ts");
const API_MESSAGES = "@anthropic-ai/sdk/resources/messages";
const API_MESSAGES_OUT = path.join(root, "dist/model/api-messages.d.ts");
const INLINED = /^(json-schema-to-ts|ts-algebra)(\/|$)/;

/** The type names `node` refers to: `A`, `NS.A` (as NS), `typeof A`, `MessagesAPI.A` (as A). */
function referencedNames(node, qualifiers) {
  const out = new Set();
  const visit = (n) => {
    let name;
    if (ts.isTypeReferenceNode(n) || ts.isExpressionWithTypeArguments(n)) name = n.typeName ?? n.expression;
    else if (ts.isTypeQueryNode(n)) name = n.exprName;
    if (name) {
      let q = name;
      while (ts.isQualifiedName(q) || ts.isPropertyAccessExpression(q)) {
        const left = ts.isQualifiedName(q) ? q.left : q.expression;
        if (ts.isIdentifier(left) && qualifiers.has(left.text)) {
          out.add(ts.isQualifiedName(q) ? q.right.text : q.name.text);
          q = undefined;
          break;
        }
        q = left;
      }
      if (q && ts.isIdentifier(q)) out.add(q.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

/** The declarations of `roots` in the SDK's messages module and all they refer to, as one file. */
function apiMessages(roots) {
  const file = path.join(root, "node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const byName = new Map();
  for (const st of source.statements) {
    const names =
      ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isModuleDeclaration(st)
        ? [st.name.text]
        : ts.isVariableStatement(st)
          ? st.declarationList.declarations.map((d) => d.name.getText())
          : [];
    for (const n of names) byName.set(n, [...(byName.get(n) ?? []), st]);
  }
  // `MessagesAPI.X` and `Messages.X` (the module's own namespace) name X of this module.
  const qualifiers = new Set(["MessagesAPI", "Messages"]);
  const kept = new Set();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop();
    if (kept.has(name) || !byName.has(name)) continue;
    kept.add(name);
    for (const st of byName.get(name)) for (const r of referencedNames(st, qualifiers)) pending.push(r);
  }
  const statements = source.statements.filter((st) => [...kept].some((n) => byName.get(n)?.includes(st)));
  // A namespace's `type X = Messages.X` names the module's X: an alias of another name keeps it so.
  const aliased = new Set();
  const text = statements
    .map((st) =>
      st.getFullText(source).replace(/\b(?:MessagesAPI|Messages)\.([A-Z]\w*)/g, (_, name) => {
        aliased.add(name);
        return `Module_${name}`;
      }),
    )
    .join("");
  const aliases = [...aliased].map((name) => `type Module_${name} = ${name};\n`).join("");
  return `// The Messages API's shapes, copied by scripts/bundle-types.mjs from the Anthropic SDK's declarations.\n${aliases}${text.trim()}\nexport {};\n`;
}

/** The names the public declarations import from the SDK's messages module. */
function importedFromApiMessages() {
  const text = readFileSync(path.join(root, "dist/model/messages.d.ts"), "utf8");
  const m = /export type \{([^}]*)\} from "@anthropic-ai\/sdk\/resources\/messages"/.exec(text);
  if (!m)
    throw new Error("bundle-types: dist/model/messages.d.ts no longer re-exports the SDK's messages types");
  return m[1]
    .split(",")
    .map((s) => s.trim().split(/\s+as\s+/)[0])
    .filter(Boolean);
}

writeFileSync(API_MESSAGES_OUT, apiMessages(importedFromApiMessages()));
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const named = new Set();
const bundle = await rollup({
  input: ENTRY,
  external: (id) => builtins.has(id) || (!/^[./]/.test(id) && !INLINED.test(id) && id !== API_MESSAGES),
  plugins: [
    { name: "api-messages", resolveId: (id) => (id === API_MESSAGES ? API_MESSAGES_OUT : null) },
    dts({ respectExternal: true }),
  ],
  onwarn: (w) => {
    if (w.code !== "UNRESOLVED_IMPORT") throw new Error(`bundle-types: ${w.message}`);
  },
});
const { output } = await bundle.generate({ format: "es" });
await bundle.close();
const code = output[0].code;
for (const m of code.matchAll(/^import .* from ['"]([^'"]+)['"];?$/gm)) named.add(m[1]);
const leaked = [...named].filter((id) => !builtins.has(id));
if (leaked.length > 0)
  throw new Error(`bundle-types: the public types name ${leaked.join(", ")}; name our own types instead`);
writeFileSync(OUT, code);
