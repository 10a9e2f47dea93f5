import { readFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../shared/is-inside.js";

/**
 * `make`: the makefile it reads (`-f FILE`, else GNUmakefile, makefile, Makefile in its folder or
 * `-C DIR`), every file those `include`, and their recipes, to follow as commands. An include built
 * from a make variable, and recipes built from them, are named as not followed. Reads files only.
 */
export interface MakeFiles {
  readonly files: readonly string[];
  readonly recipes: readonly { readonly line: string; readonly dir: string; readonly file: string }[];
  readonly notFollowed: readonly { readonly what: string; readonly why: string }[];
}

const DEFAULT_NAMES = ["GNUmakefile", "makefile", "Makefile"];
const MAX_MAKEFILES = 100;

export function makeFiles(
  words: readonly string[],
  cwds: readonly string[],
  roots: readonly string[],
): MakeFiles {
  let dir = cwds[0] ?? ".";
  const given: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string;
    if (w === "-C" || w === "--directory") dir = path.resolve(dir, words[++i] ?? ".");
    else if (w.startsWith("--directory=")) dir = path.resolve(dir, w.slice(12));
    else if (w === "-f" || w === "--file" || w === "--makefile") given.push(words[++i] ?? "");
    else if (/^--(?:file|makefile)=/.test(w)) given.push(w.slice(w.indexOf("=") + 1));
  }
  const inRoots = (f: string) => roots.some((r) => isInside(f, r));
  const first =
    given.length > 0 ? given.map((g) => path.resolve(dir, g)) : DEFAULT_NAMES.map((n) => path.join(dir, n));
  const start = given.length > 0 ? first : first.filter((f) => readText(f) !== undefined).slice(0, 1);
  const out: MakeFiles = { files: [], recipes: [], notFollowed: [] };
  const files = out.files as string[];
  const queue = start.filter(inRoots);
  while (queue.length > 0 && files.length < MAX_MAKEFILES) {
    const file = queue.shift() as string;
    if (files.includes(file)) continue;
    const text = readText(file);
    if (text === undefined) continue;
    files.push(file);
    readMakefile(file, text, dir, out, (inc) => {
      if (inRoots(inc)) queue.push(inc);
    });
  }
  return out;
}

function readMakefile(file: string, text: string, dir: string, out: MakeFiles, include: (f: string) => void) {
  const notes = out.notFollowed as { what: string; why: string }[];
  let variableRecipes = false;
  for (const line of text.replace(/\\\r?\n/g, " ").split("\n")) {
    const inc = /^\s*-?(?:include|sinclude)\s+(.+)$/.exec(line);
    if (inc) {
      for (const name of (inc[1] ?? "").split(/\s+/).filter(Boolean)) {
        if (name.includes("$"))
          notes.push({
            what: `include ${name}`,
            why: `${path.basename(file)} includes a file named by a make variable`,
          });
        else include(path.resolve(dir, name));
      }
    } else if (line.startsWith("\t")) {
      const recipe = line.slice(1).replace(/^[@+-]+/, "");
      if (/\$[({]/.test(recipe)) variableRecipes = true;
      (out.recipes as { line: string; dir: string; file: string }[]).push({ line: recipe, dir, file });
    }
  }
  if (variableRecipes)
    notes.push({
      what: path.basename(file),
      why: "its recipes use make variables ($(…)): only the files their words name as written are followed",
    });
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
