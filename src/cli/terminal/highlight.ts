import { decodeHTML } from "entities";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

// The languages a coding agent's answers show most; each registers its own aliases (sh, js, ts, py, html…).
const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
let registered = false;

/**
 * highlight.js with the languages registered, at the first code shown: registering runs each
 * language's definition, tens of milliseconds that a run whose output is no terminal never needs.
 */
function highlighter(): typeof hljs {
  if (!registered) {
    for (const [name, fn] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, fn);
    registered = true;
  }
  return hljs;
}

/** The colour of each kind of token highlight.js names (its CSS classes), as SGR open/close pairs. */
const COLOURS: Record<string, [number, number]> = {
  keyword: [34, 39],
  built_in: [36, 39],
  type: [36, 39],
  literal: [35, 39],
  number: [33, 39],
  string: [32, 39],
  regexp: [31, 39],
  comment: [2, 22],
  meta: [2, 22],
  title: [33, 39],
  attr: [36, 39],
  attribute: [36, 39],
  variable: [35, 39],
  addition: [32, 39],
  deletion: [31, 39],
  name: [34, 39],
  tag: [34, 39],
};
const FALLBACK: [number, number] = [36, 39];

/**
 * Code in colour for a terminal: highlight.js tokens (when it knows `lang`) as SGR colours, each
 * closed at the end of its line so that no colour runs into the indentation; code of a language
 * it does not know in one colour, set apart from the prose around it.
 */
export function highlightCode(code: string, lang: string | undefined): string {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!name || !highlighter().getLanguage(name)) return paint(code, FALLBACK);
  let html: string;
  try {
    html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return paint(code, FALLBACK);
  }
  const stack: ([number, number] | undefined)[] = [];
  let out = "";
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (m[1] !== undefined) {
      // `hljs-title function_`: the first class names the kind.
      const kind = m[1].replace(/^hljs-/, "").split(" ")[0] ?? "";
      stack.push(COLOURS[kind] ?? stack.at(-1));
    } else if (m[0] === "</span>") stack.pop();
    else out += paint(decodeHTML(m[2] ?? ""), stack.at(-1));
  }
  return out;
}

function paint(text: string, colour: [number, number] | undefined): string {
  if (!colour) return text;
  return text
    .split("\n")
    .map((line) => (line ? `\x1b[${colour[0]}m${line}\x1b[${colour[1]}m` : line))
    .join("\n");
}
