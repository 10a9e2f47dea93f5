import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Node, Parser } from "web-tree-sitter";
import { hiddenSubstitution, secondEvaluation } from "./hidden-code.js";
import type { QuoteContext, ShellParser } from "./shell-parser.js";
import { plainScript, type ShellPart, type ShellScript, UNKNOWN_VALUE } from "./shell-script.js";

export type { QuoteContext, ShellParser } from "./shell-parser.js";

// The grammar is loaded once per process: the loader keeps its promise, and every caller gets the
// same instance to pass on. Nothing reads it from here but `loadShellParser`.
let loading: Promise<ShellParser> | undefined;

/** The bash parser, loaded on first call; every caller awaits the same load. Contract: never rejects. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= (async (): Promise<ShellParser> => {
    try {
      // web-tree-sitter is imported here, on first use: a command that judges no command line never
      // reads it.
      const { Language, Parser } = await import("web-tree-sitter");
      await Parser.init({ locateFile: () => wasmFile("tree-sitter.wasm", "web-tree-sitter") });
      const bash = await Language.load(wasmFile("tree-sitter-bash.wasm", "tree-sitter-bash"));
      const p = new Parser();
      p.setLanguage(bash);
      return treeSitterShell(p);
    } catch {
      // Without the parser every line that is not plain words is "cannot be judged": safe, and said.
      return NO_PARSER;
    }
  })();
  return loading;
}

/**
 * The parser's or the bash grammar's .wasm: the copy the build puts beside the built module (dist/
 * and the bundle carry both; their packages are build-time dependencies, the bundle carrying
 * web-tree-sitter's code), else the package's own (run from source).
 */
function wasmFile(name: string, pkg: string): string {
  const beside = fileURLToPath(new URL(name, import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve(`${pkg}/${name}`);
}

const NOT_LOADED = { parts: [], writes: [], unreadable: "the shell parser is not loaded" };
const CONTROL = {
  parts: [],
  writes: [],
  unreadable: "it holds a control character (such as a carriage return)",
};

/** What a line is read as with no parser: its plain words, or unreadable. */
export const NO_PARSER: ShellParser = {
  parse: (line) => plainScript(line) ?? (hasControlCharacter(line) ? CONTROL : NOT_LOADED),
  quoting: () => null,
};

/** A line read by `shell`, or (none given) by its plain words alone. Contract: never throws. */
export function parseShell(line: string, shell: ShellParser = NO_PARSER): ShellScript {
  return shell.parse(line);
}

function treeSitterShell(parser: Parser): ShellParser {
  return {
    parse: (line) => parseWith(parser, line),
    quoting: (line, spans) => quotingWith(parser, line, spans),
  };
}

function parseWith(parser: Parser, line: string): ShellScript {
  const plain = plainScript(line);
  if (plain) return plain;
  // Bash splits words on spaces, tabs and newlines only; a parser that took a carriage return or a
  // form feed for a space would see other words than bash runs.
  if (hasControlCharacter(line)) return CONTROL;
  const tree = parser.parse(line);
  if (!tree) return { parts: [], writes: [], unreadable: "the line could not be parsed" };
  try {
    if (tree.rootNode.hasError) return { parts: [], writes: [], unreadable: "the line is not valid bash" };
    const hidden = hiddenSubstitution(tree.rootNode);
    if (hidden) return { parts: [], writes: [], unreadable: hidden };
    const out: Collected = { parts: [], writes: [] };
    collect(tree.rootNode, out, false);
    const evaluated = secondEvaluation(tree.rootNode);
    return evaluated ? { ...out, unjudgeable: evaluated } : out;
  } finally {
    tree.delete();
  }
}

function hasControlCharacter(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0x7f) return true;
  }
  return false;
}

interface Collected {
  parts: ShellPart[];
  writes: (string | null)[];
  reads?: (string | null)[];
  /** The index of the first write that follows a command that may change the working folder. */
  movedFrom?: number;
  network?: string;
}

/** Every node that runs something, at any depth. `heredoc`: the redirections of the enclosing statement feed it code. */
function collect(node: Node, out: Collected, heredoc: boolean): void {
  switch (node.type) {
    case "command": {
      const part = commandPart(node, heredoc);
      out.parts.push(part);
      if (out.movedFrom === undefined && mayChangeDirectory(part)) out.movedFrom = out.writes.length;
      break;
    }
    case "declaration_command":
    case "unset_command":
      out.parts.push(declarationPart(node));
      break;
    case "variable_assignment":
      if (!isPrefixAssignment(node)) out.parts.push(assignmentPart(node));
      break;
    case "file_redirect":
      fileRedirect(node, out);
      break;
    case "redirected_statement": {
      const feeds = node.namedChildren.some(
        (c) => c?.type === "heredoc_redirect" || c?.type === "herestring_redirect",
      );
      // Tree nodes are fresh objects on every access: compare ids, not identities.
      const body = node.childForFieldName("body");
      const at = out.parts.length;
      for (const c of node.namedChildren) if (c) collect(c, out, feeds && c.id === body?.id);
      addTrailingWords(node, body, out, at);
      return;
    }
    default:
      break;
  }
  for (const c of node.namedChildren) if (c) collect(c, out, false);
}

/**
 * Words after a redirection's target are the command's arguments (`git commit > /dev/null --amend`
 * runs `git commit --amend`), though the grammar reads them as more targets: they join the words of
 * the command the redirection belongs to. After anything but a simple command bash would not run
 * the line; it is then a command whose program cannot be read.
 */
function addTrailingWords(node: Node, body: Node | null, out: Collected, at: number): void {
  const trailing = node.namedChildren
    .filter((c): c is Node => c?.type === "file_redirect")
    .flatMap((r) => r.childrenForFieldName("destination").slice(1))
    .filter((w): w is Node => w !== null);
  if (trailing.length === 0) return;
  const part = out.parts[at];
  const words = trailing.map(literal);
  if (body?.type === "command" && part)
    out.parts[at] = { ...part, words: [...part.words, ...words], source: node.text };
  else out.parts.push({ words: [null, ...words], assignments: 0, source: node.text, heredoc: false });
}

/** `cd`, `pushd`, `popd`, and what may run one in this shell (`builtin cd`, `eval`, `$X`). */
const MOVERS = new Set([
  "cd",
  "pushd",
  "popd",
  "builtin",
  "command",
  "eval",
  "source",
  ".",
  "time",
  "trap",
  "alias",
]);

function mayChangeDirectory(part: ShellPart): boolean {
  const program = part.words[part.assignments];
  return program === null || (program !== undefined && MOVERS.has(program));
}

function commandPart(node: Node, heredoc: boolean): ShellPart {
  const fed =
    heredoc ||
    node.namedChildren.some((c) => c?.type === "herestring_redirect" || c?.type === "heredoc_redirect");
  const words: (string | null)[] = [];
  let assignments = 0;
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === "variable_assignment") {
      words.push(assignmentText(c));
      assignments++;
    } else if (c.type === "command_name") {
      words.push(c.firstNamedChild ? literal(c.firstNamedChild) : null);
    } else if (
      c.type !== "file_redirect" &&
      c.type !== "heredoc_redirect" &&
      c.type !== "herestring_redirect"
    ) {
      words.push(literal(c));
    }
  }
  return { words, assignments, source: node.text, heredoc: fed };
}

/** `export A=1 B`, `declare -x X=$(…)`, `unset PATH`: a command whose assignments count as such. */
function declarationPart(node: Node): ShellPart {
  const words: (string | null)[] = [node.firstChild?.text ?? ""];
  for (const c of node.namedChildren)
    if (c) words.push(c.type === "variable_assignment" ? assignmentText(c) : literal(c));
  return { words, assignments: 0, source: node.text, heredoc: false };
}

/** `A=1` alone (a statement): assignments only, no program. */
function assignmentPart(node: Node): ShellPart {
  return { words: [assignmentText(node)], assignments: 1, source: node.text, heredoc: false };
}

function isPrefixAssignment(node: Node): boolean {
  return node.parent?.type === "command" || node.parent?.type === "declaration_command";
}

/** `NAME=value` with the value's text when plain, or `NAME=` and NUL when not (the name stays known). */
function assignmentText(node: Node): string | null {
  const name = node.childForFieldName("name")?.text ?? "";
  const value = node.childForFieldName("value");
  if (!value) return `${name}=`;
  const v = literal(value);
  return `${name}=${v === null ? UNKNOWN_VALUE : v}`;
}

const DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

/**
 * A redirection that writes a file adds its path to `writes`, one that reads a file (`< in`) to
 * `reads`; `2>&1`, `<&0`, `> /dev/null` add nothing. One bash opens as a network connection
 * (`/dev/tcp/…`, `/dev/udp/…`), or a read from a path that is not plain text (which may be one),
 * is noted in `network`.
 */
function fileRedirect(node: Node, out: Collected): void {
  const op = node.children.find((c) => c && !c.isNamed)?.type ?? "";
  const destination = node.childForFieldName("destination") ?? node.lastNamedChild;
  if ((op === ">&" || op === "<&" || op === "&>") && destination?.type === "number") return;
  if ((op === ">&" || op === "<&") && destination?.text === "-") return;
  const target = destination ? literal(destination) : null;
  if (target !== null && NETWORK_PATH.test(target))
    out.network ??= `it opens a network connection through bash's path '${target}'`;
  if (op === "<" || op === "<&") {
    if (target === null)
      out.network ??=
        "it redirects from a path that is not plain text, which may be bash's /dev/tcp/… network path";
    if (op === "<") out.reads = [...(out.reads ?? []), target];
    return;
  }
  if (target !== null && (DEVICES.has(target) || /^\/dev\/fd\/\d+$/.test(target))) return;
  out.writes.push(target);
}

/** The paths bash itself opens as network connections in a redirection. */
export const NETWORK_PATH = /^\/dev\/(tcp|udp)\//;

/**
 * A word's value when it is plain text: quotes removed, escapes applied. `null` for anything the
 * shell would expand: `$x`, `$( … )`, a glob, a brace, a leading `~`, `$'…'`.
 */
function literal(node: Node): string | null {
  switch (node.type) {
    case "word":
    case "number":
      return unquotedWord(node.text);
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let out = "";
      for (const c of node.namedChildren) {
        if (c?.type !== "string_content") return null;
        out += c.text.replace(/\\([\\"$`\n])/g, (_, ch: string) => (ch === "\n" ? "" : ch));
      }
      return out;
    }
    case "concatenation": {
      let out = "";
      for (const c of node.namedChildren) {
        const v = c ? literal(c) : null;
        if (v === null) return null;
        out += v;
      }
      // A brace split across words (`{a,b}`) is still an expansion.
      return /[{}]/.test(node.text) &&
        node.namedChildren.some((c) => c?.type === "word" && /[{}]/.test(c.text))
        ? null
        : out;
    }
    default:
      return null;
  }
}

/** An unquoted word: escapes applied; null when the shell would expand it. */
function unquotedWord(text: string): string | null {
  if (text.startsWith("~") || /(?<!\\)[*?[{}]/.test(text)) return null;
  return text.includes("\\") ? text.replace(/\\(.)/gs, "$1") : text;
}

function quotingWith(
  parser: Parser,
  line: string,
  spans: readonly (readonly [number, number])[],
): QuoteContext[] | null {
  const tree = parser.parse(line);
  if (!tree) return null;
  try {
    if (tree.rootNode.hasError) return null;
    return spans.map(([start, end]) => contextOf(tree.rootNode.descendantForIndex(start, end)));
  } finally {
    tree.delete();
  }
}

function contextOf(node: Node | null): QuoteContext {
  for (let n = node; n; n = n.parent) {
    switch (n.type) {
      case "raw_string":
        return "single";
      case "ansi_c_string":
        return "ansi";
      case "string":
      case "string_content":
        return "double";
      case "heredoc_body": {
        const start = n.parent?.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
        return /['"\\]/.test(start) ? "literal-heredoc" : "heredoc";
      }
      case "command_substitution":
      case "process_substitution":
      case "program":
        return "plain";
      default:
        break;
    }
  }
  return "plain";
}
