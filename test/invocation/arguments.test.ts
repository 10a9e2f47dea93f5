import { describe, expect, it } from "vitest";
import { splitArgs, substituteArguments } from "../../src/invocation/arguments.js";

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
  ])("in a command line, %s with %s is quoted for where it stands", (command, args, expected) => {
    expect(substituteArguments(command, args, true)).toBe(expected);
  });

  it("splits as a shell does", () => {
    expect(splitArgs(`a "b c" 'd e' f\\ g "h\\"i"`)).toEqual(["a", "b c", "d e", "f g", 'h"i']);
  });
});
