import * as pages from "./client-pages.js";
import * as tree from "./client-tree.js";

type Fn = (...args: never[]) => unknown;

const functions = (module: Record<string, unknown>): [string, Fn][] =>
  Object.entries(module).filter((e): e is [string, Fn] => typeof e[1] === "function");

/**
 * The page's script: the browser-side functions of client-tree.ts and client-pages.ts, by their
 * source text (type-checked against the DOM, and served from this process: no file to find at run
 * time, nothing from elsewhere). The pages reach the tree's functions as `ViewTree.name`.
 */
export function clientScript(): string {
  const treeFns = functions(tree);
  const pageFns = functions(pages);
  const table = treeFns.map(([name, fn]) => `${name}: ${fn.name}`).join(", ");
  return [
    '"use strict";',
    ...treeFns.map(([, fn]) => String(fn)),
    `const ViewTree = { ${table} };`,
    ...pageFns.map(([, fn]) => String(fn)),
    `${pages.startPage.name}();`,
    "",
  ].join("\n");
}
