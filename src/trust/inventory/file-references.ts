import { statSync } from "node:fs";
import path from "node:path";

/**
 * What a file of code names, read as text: a shell script's lines (to follow as commands: `. lib.sh`,
 * `source x`, `./other.sh`), a JavaScript or TypeScript module's static imports and `require`s of
 * relative paths, a Python module's imports of modules beside it. A `require` or `import()` of a
 * value that is not a string literal is named, not followed. Pure but for `statSync`.
 */
export interface References {
  /** The script's text, comments off and its own folder put in for `$(dirname "$0")`: to follow as commands. */
  readonly shell?: string;
  /** Files it imports, absolute, that exist. */
  readonly modules: readonly string[];
  /** Imports of names built at run time, as written. */
  readonly dynamic: readonly string[];
}

const JS = /\.(?:[cm]?[jt]sx?)$/;
const SHELL = /\.(?:sh|bash|zsh|ksh)$/;
const JS_TRIES = ["", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".mts", ".cts", ".jsx", ".json"];

export function referencesOf(file: string, text: string): References {
  const kind = kindOf(file, text);
  if (kind === "shell") return { shell: shellText(file, text), modules: [], dynamic: [] };
  if (kind === "js") return jsReferences(file, text);
  if (kind === "python") return { modules: pythonImports(file, text), dynamic: [] };
  return { modules: [], dynamic: [] };
}

function kindOf(file: string, text: string): "shell" | "js" | "python" | "other" {
  const bang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  const interp = bang
    ? path.basename(
        bang[1] === "/usr/bin/env" || bang[1]?.endsWith("/env") ? (bang[2] ?? "") : (bang[1] ?? ""),
      )
    : "";
  if (SHELL.test(file) || /^(?:sh|bash|dash|zsh|ksh|ash)$/.test(interp)) return "shell";
  if (JS.test(file) || /^(?:node|deno|bun|tsx|ts-node)$/.test(interp)) return "js";
  if (file.endsWith(".py") || /^python/.test(interp)) return "python";
  return "other";
}

/** Continued lines joined, comments off, and the idioms for "this script's folder" put in. */
function shellText(file: string, text: string): string {
  const dir = path.dirname(file);
  return text
    .replace(/\\\r?\n/g, " ")
    .split("\n")
    .map((l) => (/^\s*#/.test(l) ? "" : l.replace(/\s#[^'"]*$/, "")))
    .join("\n")
    .replace(/\$\(\s*dirname\s+("?)\$(?:0|\{0\}|\{?BASH_SOURCE(?:\[0\])?\}?)\1\s*\)/g, dir)
    .replace(/\$\{(?:0|BASH_SOURCE(?:\[0\])?)%\/\*\}/g, dir);
}

const JS_STATIC =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?["']([^"'\n]+)["']|\brequire\s*\(\s*["']([^"'\n]+)["']\s*\)|\bimport\s*\(\s*["']([^"'\n]+)["']\s*\)/g;
const JS_DYNAMIC = /\b(require|import)\s*\(\s*([^"'\s)][^)]{0,80})\)/g;

function jsReferences(file: string, text: string): References {
  const modules: string[] = [];
  for (const m of text.matchAll(JS_STATIC)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? "";
    if (!/^\.{1,2}(?:\/|$)|^\//.test(spec)) continue;
    const found = jsFile(path.resolve(path.dirname(file), spec));
    if (found) modules.push(found);
  }
  const dynamic = [...text.matchAll(JS_DYNAMIC)]
    .filter((m) => !/^`[^`$]*`$/.test((m[2] ?? "").trim()))
    .map((m) => `${m[1]}(${(m[2] ?? "").trim()})`);
  return { modules, dynamic };
}

/** A relative specifier as node or a TypeScript loader would find it: as written, with an extension, `.js` as `.ts`, an index. */
function jsFile(base: string): string | undefined {
  const tries = [
    ...JS_TRIES.map((e) => base + e),
    ...(/\.[cm]?js$/.test(base) ? [base.replace(/js$/, "ts"), base.replace(/\.js$/, ".tsx")] : []),
    ...JS_TRIES.slice(1).map((e) => path.join(base, `index${e}`)),
  ];
  return tries.find(isFile);
}

/** `import a.b`, `from .x import y`, `from pkg import mod`: the modules found beside the file. */
function pythonImports(file: string, text: string): string[] {
  const dir = path.dirname(file);
  const out: string[] = [];
  const add = (base: string, dotted: string) => {
    const p = path.join(base, ...dotted.split(".").filter(Boolean));
    const found = [`${p}.py`, path.join(p, "__init__.py")].find(isFile);
    if (found) out.push(found);
  };
  for (const m of text.matchAll(/^\s*from\s+(\.*)([\w.]*)\s+import\s+([\w\s,*()]+)/gm)) {
    const up = Math.max(0, (m[1] ?? "").length - 1);
    const base = path.resolve(dir, ...Array<string>(up).fill(".."));
    add(base, m[2] ?? "");
    for (const name of (m[3] ?? "").split(/[\s,()]+/).filter((n) => /^\w+$/.test(n)))
      add(base, `${m[2] ?? ""}.${name}`);
  }
  for (const m of text.matchAll(/^\s*import\s+([\w.,\s]+)$/gm))
    for (const name of (m[1] ?? "").split(",").map((n) => n.trim().split(/\s+/)[0] ?? ""))
      if (name) add(dir, name);
  return out;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
