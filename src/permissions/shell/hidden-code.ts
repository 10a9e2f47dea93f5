import type { Node } from "web-tree-sitter";

/**
 * Code a command line runs that the parser does not show as commands. Two kinds:
 *
 * - a command substitution the grammar read as text (`${X:-`rm v`}`, `${X#$(rm v)}`, a backtick in a
 *   here-document): its commands cannot be judged, so the line cannot be read;
 * - a value bash evaluates a second time: arithmetic (`$((a))`, `((…))`, `let`, `[[ a -eq 1 ]]`, an
 *   array index, a substring offset) reads a variable's value as an expression, and an array index
 *   in that value (`a='x[$(rm v)]'`) runs its substitution; so does a prompt expansion (`${X@P}`).
 */

/** Text that starts a command substitution, a process substitution or an arithmetic expansion. */
const OPENS_CODE = /`|\$\(|\$\[|<\(|>\(/;
/** The grammar's own tokens that open a substitution it did parse. */
const OPENERS = new Set(["`", "$(", "$((", "$[", "<(", ">(", "(("]);
/** Arithmetic that reads no variable: digits, operators, parentheses, spaces. */
const NUMERIC = /^[\s\d+\-*/%()<>=!&|^~?:,]*$/;
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const NAME_TESTS = new Set(["-v", "-R"]);

interface Scope {
  /** Inside backticks: there `\`` opens a nested substitution. */
  readonly backtick: boolean;
  /** Inside `${…}`: there quotes inside `"…"` are not quotes. */
  readonly expansion: boolean;
}

/** Why the line holds a substitution the parser read as text, if it does. */
export function hiddenSubstitution(root: Node): string | undefined {
  return scan(root, { backtick: false, expansion: false })
    ? "it holds a command substitution inside an expansion or a here-document that cannot be read as commands"
    : undefined;
}

function scan(node: Node, scope: Scope): boolean {
  if (isLiteral(node, scope)) return false;
  if (node.childCount === 0) return !(!node.isNamed && OPENERS.has(node.text)) && opensCode(node.text, scope);
  const inner: Scope = {
    backtick: scope.backtick || (node.type === "command_substitution" && node.text.startsWith("`")),
    expansion: scope.expansion || node.type === "expansion",
  };
  let at = node.startIndex;
  for (const c of node.children) {
    if (!c) continue;
    if (opensCode(gap(node, at, c.startIndex), scope) || scan(c, inner)) return true;
    at = c.endIndex;
  }
  return opensCode(gap(node, at, node.endIndex), scope);
}

/** The node's text between two offsets of the line (text no child covers). */
function gap(node: Node, from: number, to: number): string {
  return to > from ? node.text.slice(from - node.startIndex, to - node.startIndex) : "";
}

/** Single quotes, `$'…'`, and a here-document with a quoted delimiter: no substitution there. */
function isLiteral(node: Node, scope: Scope): boolean {
  if ((node.type === "raw_string" || node.type === "ansi_c_string") && !scope.expansion) return true;
  if (node.type !== "heredoc_body") return false;
  const start = node.parent?.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
  return /['"\\]/.test(start);
}

function opensCode(text: string, scope: Scope): boolean {
  if (text === "") return false;
  // `\`` and `\$(` are plain characters, except inside backticks, which read them again.
  return OPENS_CODE.test(scope.backtick ? text : text.replace(/\\[\s\S]/g, ""));
}

/** Why bash would evaluate a value of the line a second time, if it would. */
export function secondEvaluation(node: Node, inTest: Test = ""): string | undefined {
  const why = evaluates(node, inTest);
  if (why) return why;
  const test: Test =
    node.type === "test_command"
      ? node.children[0]?.type === "[["
        ? "[["
        : "["
      : STARTS_COMMANDS.has(node.type)
        ? ""
        : inTest;
  for (const c of node.namedChildren) {
    const w = c ? secondEvaluation(c, test) : undefined;
    if (w) return w;
  }
  return undefined;
}

/** Inside `[[ … ]]`, inside `[ … ]`, or in neither. */
type Test = "" | "[" | "[[";

const STARTS_COMMANDS = new Set(["command_substitution", "process_substitution"]);

const ARITHMETIC =
  "arithmetic that reads a variable evaluates its value as an expression, which can run commands";

function evaluates(node: Node, inTest: Test): string | undefined {
  switch (node.type) {
    case "arithmetic_expansion":
      return numeric(node.text.replace(/^\$(\(\(|\[)|(\)\)|\])$/g, "")) ? undefined : ARITHMETIC;
    case "command_substitution":
      // Where the grammar reads `$((a))` as a subshell in a substitution, bash reads arithmetic.
      return node.text.startsWith("$((") && !numeric(node.text.slice(3, -2)) ? ARITHMETIC : undefined;
    case "compound_statement":
    case "c_style_for_statement":
      return node.children[0]?.type === "((" || node.children[1]?.type === "(("
        ? numeric(between(node, "((", "))"))
          ? undefined
          : ARITHMETIC
        : undefined;
    case "subscript":
      return indexPlain(between(node, "[", "]"))
        ? undefined
        : `the array index in '${node.text}' is ${ARITHMETIC}`;
    case "array":
      return node.namedChildren.some((c) => c && /^\[/.test(c.text) && !/^\[\d+\]=/.test(c.text))
        ? `an array index in '${node.text}' is ${ARITHMETIC}`
        : undefined;
    case "expansion":
      return expansionEvaluates(node);
    case "binary_expression":
    case "unary_expression":
      return inTest ? testEvaluates(node, inTest) : undefined;
    default:
      return undefined;
  }
}

function numeric(text: string): boolean {
  return NUMERIC.test(text);
}

function indexPlain(index: string): boolean {
  return index === "@" || index === "*" || (index.trim() !== "" && numeric(index));
}

/** The text between the first `open` token and the last `close` token among a node's children. */
function between(node: Node, open: string, close: string): string {
  const kids = node.children;
  const from = kids.findIndex((c) => c?.type === open);
  let to = -1;
  for (let i = kids.length - 1; i > from; i--)
    if (kids[i]?.type === close) {
      to = i;
      break;
    }
  const a = kids[from];
  const b = kids[to];
  if (from < 0 || to < 0 || !a || !b) return node.text;
  return gap(node, a.endIndex, b.startIndex);
}

/** `${X@P}` and every `${X@…}`; `${!X}` (the value names another variable); `${X:offset}`. */
function expansionEvaluates(node: Node): string | undefined {
  const kids = node.children.filter((c): c is Node => c !== null);
  if (kids[1]?.type === "!" && !/^\$\{![A-Za-z_]\w*(\[[@*]\]|[@*])\}$/.test(node.text))
    return `'${node.text}' reads the variable its value names, evaluating an array index in it`;
  const name = kids.findIndex((c) => c.isNamed);
  const op = kids[name + 1];
  if (name < 0 || !op || op.isNamed) return undefined;
  if (op.type === "@") return `'${node.text}' transforms a value (a prompt expansion can run commands)`;
  if (op.type !== ":") return undefined;
  const rest = gap(node, op.endIndex, (kids[kids.length - 1] as Node).startIndex);
  return numeric(rest) ? undefined : `the substring offset in '${node.text}' is ${ARITHMETIC}`;
}

/** `[[ a -eq 1 ]]` evaluates both sides as arithmetic; `-v a[…]` evaluates the index. */
function testEvaluates(node: Node, test: Test): string | undefined {
  const op = node.namedChildren.find((c) => c?.type === "test_operator")?.text ?? "";
  if (node.type === "unary_expression" && NAME_TESTS.has(op))
    return `'${op}' tests a variable by name, evaluating an array index in it`;
  // `[ a -eq 1 ]` (the builtin) reads numbers only; `[[ … ]]` evaluates.
  if (test !== "[[" || node.type !== "binary_expression" || !ARITHMETIC_TESTS.has(op)) return undefined;
  const sides = node.namedChildren.filter((c) => c && c.type !== "test_operator");
  return sides.every((c) => c && numeric(c.text)) ? undefined : `'${op}' in [[ … ]] is ${ARITHMETIC}`;
}
