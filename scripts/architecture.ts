// The layout rules of docs/architecture.md, measured from the source: the import graph of src/
// (every static, type-only and dynamic import), its cycles, the arrows that point up a floor,
// file lengths and function lengths. Used by test/architecture/layout.test.ts; `npx jiti
// scripts/architecture.ts` prints the same findings, to plan a clean-up.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The floors of src/, lowest first: a module may import from its own floor or one below it. */
export const FLOORS: readonly (readonly string[])[] = [
  ["shared"],
  ["definitions"],
  ["permissions"],
  ["tools", "sandbox", "model"],
  ["mcp", "trust"],
  ["loop", "tracing"],
  ["invocation"],
  ["batch", "audit", "view"],
  ["cli"],
  ["index.ts"],
];

export interface SourceFile {
  readonly file: string;
  readonly lines: number;
  readonly imports: readonly string[];
  readonly functions: readonly { readonly name: string; readonly line: number; readonly lines: number }[];
}

export function readSources(srcDir: string): SourceFile[] {
  const out: SourceFile[] = [];
  for (const file of walk(srcDir)) {
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const imports: string[] = [];
    const functions: { name: string; line: number; lines: number }[] = [];
    const visit = (node: ts.Node): void => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      )
        imports.push(node.moduleSpecifier.text);
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      )
        imports.push(node.arguments[0].text);
      if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      )
        imports.push(node.argument.literal.text);
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        functions.push({ name: functionName(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    const resolved = imports
      .filter((s) => s.startsWith("."))
      .map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, ".ts"));
    out.push({ file, lines: text.split("\n").length, imports: resolved, functions });
  }
  return out;
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out.sort();
}

/** Every import cycle, each as the list of files on it (strongly connected components of size > 1). */
export function cycles(sources: readonly SourceFile[]): string[][] {
  const graph = new Map(sources.map((s) => [s.file, s.imports.filter((i) => i !== s.file)]));
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, indices.get(w) ?? 0));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) connect(v);
  return out;
}

export function floorOf(srcDir: string, file: string): number {
  const top = path.relative(srcDir, file).split(path.sep)[0] ?? "";
  return FLOORS.findIndex((floor) => floor.includes(top));
}

/** Imports that point to a higher floor than the importing file's own: `from -> to`. */
export function upwardArrows(srcDir: string, sources: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const s of sources)
    for (const i of s.imports)
      if (floorOf(srcDir, i) > floorOf(srcDir, s.file))
        out.push(`${path.relative(srcDir, s.file)} -> ${path.relative(srcDir, i)}`);
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const src = path.resolve(process.argv[2] ?? "src");
  const sources = readSources(src);
  const rel = (f: string) => path.relative(src, f);
  console.log("cycles:");
  for (const c of cycles(sources)) console.log(`  ${c.map(rel).join("  ")}`);
  console.log("upward arrows:");
  for (const a of upwardArrows(src, sources)) console.log(`  ${a}`);
  console.log("files over 400 lines:");
  for (const s of sources) if (s.lines > 400) console.log(`  ${rel(s.file)} ${s.lines}`);
  console.log("functions over 80 lines:");
  for (const s of sources)
    for (const f of s.functions)
      if (f.lines > 80) console.log(`  ${rel(s.file)}:${f.line} ${f.name} ${f.lines}`);
}
