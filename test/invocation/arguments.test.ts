import { describe, expect, it } from "vitest";
import { quoteIntoCommand, splitArgs, substituteArguments } from "../../src/invocation/arguments.js";
import { loadShellParser } from "../../src/permissions/index.js";

const shell = await loadShellParser();

describe("arguments of /name invocations", () => {
  it.each<[string, string, string]>([
    ["Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"],
    ["first=$1 second=$2 third=$3", "a 'b c' d", "first=a second=b c third=d"],
    ["zero-based $ARGUMENTS[0] and $ARGUMENTS[1]", "x y", "zero-based x and y"],
    ["missing: [$5]", "a", "missing: []"],
    ["price: \\$5 and $0", "a", "price: $5 and $0"],
  ])("%s with %s", (body, args, expected) => {
    expect(substituteArguments(body, args)).toBe(expected);
  });

  it.each<[string, string, string]>([
    ["echo $1", "a b", "echo a"],
    ["echo $1", "'a b'", "echo 'a b'"],
    ["echo $1", "'; rm -rf x'", "echo '; rm -rf x'"],
    ['echo "got: $1"', "'a b'", 'echo "got: a b"'],
    ['echo "got: $1"', "'$(id -un)'", 'echo "got: \\$(id -un)"'],
    ['echo "$1"', "'\"`x`\"'", 'echo "\\"\\`x\\`\\""'],
    ["echo '$1'", '"it\'s"', "echo 'it'\\''s'"],
    ["git log -- $ARGUMENTS", "a 'b c'", "git log -- a 'b c'"],
    ['echo "$(git log -1 -- $1)"', "'x; rm -rf ~'", "echo \"$(git log -1 -- 'x; rm -rf ~')\""],
    ['echo "a $(echo "$1")"', "'$(id)'", 'echo "a $(echo "\\$(id)")"'],
    ["echo $'$1'", '"it\'s"', "echo $'it\\'s'"],
    ["echo `git log -- $1`", "'; id'", "echo `git log -- '; id'`"],
    ["cat <<EOF\n$1\nEOF", "'$(id)'", "cat <<EOF\n\\$(id)\nEOF"],
  ])("in a command line, %s with %s is quoted for where it stands", (command, args, expected) => {
    expect(quoteIntoCommand(command, args, shell)).toEqual({ ok: true, command: expected });
  });

  it("refuses what it cannot quote safely", () => {
    expect(quoteIntoCommand("echo $1 )", "x", shell).ok).toBe(false);
    expect(quoteIntoCommand("cat <<EOF\n$1\nEOF", "'a\nEOF\nrm -rf ~'", shell).ok).toBe(false);
  });

  it("splits as a shell does", () => {
    expect(splitArgs(`a "b c" 'd e' f\\ g "h\\"i"`)).toEqual(["a", "b c", "d e", "f g", 'h"i']);
  });
});
