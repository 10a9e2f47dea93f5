import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deniedNote } from "../../src/permissions/decision-note.js";
import { decide, denialText } from "../../src/permissions/index.js";
import type { Denial } from "../../src/permissions/types.js";
import { JUDGED, judge, list } from "../support/permissions.js";

const denied = (deny: string, command: string): Denial => {
  const d = decide(list(null, deny), { tool: "Bash", input: { command } }, JUDGED);
  if (d.kind !== "denied") throw new Error(`${command} was allowed`);
  return d;
};

describe("a line that cannot be judged names a deny rule that could match it", () => {
  // [deny rules, line, the rules its denial may name]
  const cases: [string, string, string[]][] = [
    ["Bash(git push:*), Bash(npm publish:*)", "npm --registry x publish", ["Bash(npm publish:*)"]],
    ["Bash(npm publish:*), Bash(git push:*)", "git -c a=b push", ["Bash(git push:*)"]],
    ["Bash(git push:*), Bash(npm publish:*)", "git $SUB origin", ["Bash(git push:*)"]],
    ["Bash(git push:*), Bash(rm:*)", "sudo rm -rf x", ["Bash(git push:*)", "Bash(rm:*)"]],
  ];
  it.each(cases)("deny %s: %s names %j", (deny, command, named) => {
    const d = denied(deny, command);
    expect(d.reason).toBe("cannot-judge");
    const text = denialText(d);
    for (const rule of ["Bash(git push:*)", "Bash(npm publish:*)", "Bash(rm:*)"])
      if (named.includes(rule)) expect(text).toContain(`'${rule}'`);
      else expect(text).not.toContain(rule);
    expect(deniedNote(d, "/proj").rule?.split("; ").sort()).toEqual([...named].sort());
  });

  it("a rule whose program is not the line's is never named when another could match", () => {
    const programs = ["npm", "cargo", "docker", "gem"];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(programs, { minLength: 2 }),
        fc.constantFrom(...programs),
        (denies, program) => {
          const rules = denies.map((p) => `Bash(${p} publish:*)`).join(", ");
          const d = decide(
            list(null, rules),
            { tool: "Bash", input: { command: `${program} --registry r publish` } },
            JUDGED,
          );
          if (!denies.includes(program)) return d.kind === "allowed";
          if (d.kind !== "denied" || d.reason !== "cannot-judge") return false;
          const text = denialText(d);
          return denies.every((p) => text.includes(`Bash(${p} publish:*)`) === (p === program));
        },
      ),
    );
  });
});

describe("words after a redirection's target are the command's own", () => {
  // [allow, deny, line, verdict]: the grammar reads `x` in `cmd > f x` as a second target.
  const cases: [string | null, string, string, string][] = [
    ["Bash(git:*)", "Bash(git push:*)", "git > /dev/null push origin", "denied: denied-by-rule"],
    ["Bash(git:*)", "Bash(git push:*)", "git 2>/dev/null push", "denied: denied-by-rule"],
    ["Bash(git commit)", "", "git commit > /dev/null --amend", "denied: no-pattern-matched"],
    ["Bash(git commit)", "", "git commit > /dev/null", "allowed"],
    ["Bash(cat:*)", "", "cat < in.txt more.txt", "allowed"],
    ["Bash(a:*), Bash(b:*)", "", "a | b > /dev/null x", "denied: cannot-judge"],
  ];
  it.each(cases)("allow %s, deny %s: %s → %s", (allow, deny, command, expected) => {
    expect(judge(list(allow, deny || undefined), "Bash", { command })).toBe(expected);
  });
});
