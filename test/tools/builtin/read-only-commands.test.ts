import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../../src/permissions/index.js";
import { isReadOnlyCommand } from "../../../src/tools/builtin/read-only-commands.js";

beforeAll(loadShellParser);

describe("read-only commands (these run in parallel in a batch)", () => {
  it.each<[string, boolean]>([
    ["ls -la", true],
    ["cat README.md", true],
    ["true", true],
    ["head -20 a.txt | wc -l", true],
    ["git status", true],
    ["git log --oneline | head -20", true],
    ["git diff HEAD~1 -- src", true],
    ["grep -rn TODO src", true],
    ["rg -n foo", true],
    ["find . -name '*.ts'", true],
    ["ls && pwd; echo done", true],
    ["git log > log.txt", false],
    ["git diff --output=x.patch", false],
    ["git push", false],
    ["git -C . status", false],
    ["git commit -m x", false],
    ["find . -delete", false],
    ["find . -exec rm {} +", false],
    ["rg --pre ./evil x", false],
    ["sort -o out.txt in.txt", false],
    ["date -s 2020-01-01", false],
    ["cat $FILE", false],
    ["ls *.ts", false],
    ["FOO=1 ls", false],
    ["ls; rm -rf x", false],
    ["echo $(rm -rf x)", false],
    ["[[ $A -eq 1 ]] && ls", false],
    ["echo ${X@P}", false],
    ["git status ${X:-`rm -rf x`}", false],
    ["cat <<EOF\n`rm -rf x`\nEOF", false],
    ["./ls", false],
    ["npm test", false],
    ["sed -i s/a/b/ f", false],
    ["", false],
  ])("%j → %s", (line, expected) => {
    expect(isReadOnlyCommand(line)).toBe(expected);
  });

  it("is never read-only when any part of the line is not", () => {
    const readOnly = fc.constantFrom("ls", "cat a", "git status", "wc -l a", "head -1 a", "true");
    const other = fc.constantFrom(
      "rm -rf x",
      "npm install",
      "git push",
      "touch f",
      "ls > f",
      "curl x",
      "echo $(id)",
    );
    const op = fc.constantFrom("; ", " && ", " | ", " || ");
    fc.assert(
      fc.property(
        fc.array(readOnly, { maxLength: 3 }),
        other,
        fc.array(readOnly, { maxLength: 3 }),
        op,
        (a, bad, b, o) => {
          expect(isReadOnlyCommand([...a, bad, ...b].join(o))).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
