import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadShellParser } from "../../../src/permissions/index.js";
import { isReadOnlyCommand, READ_ONLY_PROGRAMS } from "../../../src/tools/builtin/read-only-commands.js";

const shell = await loadShellParser();

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
    // Abbreviated long options, bundled short options, options after the operands.
    ["sort --out=F in.txt", false],
    ["sort --o F in.txt", false],
    ["sort -uo F in.txt", false],
    ["sort in.txt -o F", false],
    ["sort -S 1 --compress-prog=./x.sh big.txt", false],
    ["sort -T /tmp/x big.txt", false],
    ["sort -k2 -t, -u in.txt", true],
    ["sort -k 2 -r in.txt", true],
    ["sort -t -o in.txt", true],
    ["sort in.txt", true],
    ["sort -- -o", true],
    ["git diff --outp=F", false],
    ["git log --out=F", false],
    ["git diff --ext-d", false],
    ["git log --textconv -p", false],
    ["git cat-file --filters HEAD:x", false],
    ["git show --output-dir=x", false],
    ["git log --oneline -n 5", true],
    ["file -C -m x", false],
    ["file -zb x.gz", false],
    ["file --comp -m x", false],
    ["file -b x", true],
    ["tree -o F", false],
    ["tree -aRH . x", false],
    ["tree --out=F", false],
    ["tree -L 2", true],
    ["date --se=2020-01-01", false],
    ["date -us 2020-01-01", false],
    ["date -d yesterday", true],
    ["rg --pre-g='*' x", false],
    ["rg -iz x", false],
    ["rg --hostname-bin=./x foo", false],
    ["rg -e -z foo", true],
    ["find . -ok rm {} ;", false],
    ["find . -fprint out", false],
  ])("%j → %s", (line, expected) => {
    expect(isReadOnlyCommand(line, shell)).toBe(expected);
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
          expect(isReadOnlyCommand([...a, bad, ...b].join(o), shell)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never reads an abbreviation or a bundle of a writing option as read-only", () => {
    type Writing = { program: string; long: string } | { program: string; short: string; flags: string };
    const writing = [...READ_ONLY_PROGRAMS].flatMap(([program, rule]): Writing[] => {
      const sub = rule.subcommands ? ` ${[...rule.subcommands][0]}` : "";
      return [
        ...(rule.options?.long ?? []).map((name) => ({ program: program + sub, long: name })),
        ...[...(rule.options?.short ?? "")].map((c) => ({
          program: program + sub,
          short: c,
          // Flags that take no value may stand before it in one bundle.
          flags: "abghlnpqv".replace(new RegExp(`[${rule.options?.shortValue ?? "-"}]`, "g"), ""),
        })),
      ];
    });
    expect(writing.length).toBeGreaterThan(20);
    fc.assert(
      fc.property(
        fc.constantFrom(...writing),
        fc.nat(),
        fc.stringMatching(/^[a-z]{0,3}$/),
        fc.boolean(),
        (w, cut, before, after) => {
          const option =
            "long" in w
              ? `--${w.long.slice(0, 1 + (cut % w.long.length))}=v`
              : `-${[...before].filter((c) => w.flags.includes(c)).join("")}${w.short}`;
          const line = after ? `${w.program} in.txt ${option} v` : `${w.program} ${option} v in.txt`;
          expect(isReadOnlyCommand(line, shell)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
