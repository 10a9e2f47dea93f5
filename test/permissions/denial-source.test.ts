import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deniedNote } from "../../src/permissions/decision-note.js";
import { decide, denialText, intersect } from "../../src/permissions/index.js";
import { narrowingBy, UNRESTRICTED } from "../../src/permissions/permission-list.js";
import type { IndexedList } from "../../src/permissions/tool-view.js";
import type { Denial, PermissionList } from "../../src/permissions/types.js";
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
    const programs = ["docker", "gem", "helm", "kubectl"];
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

describe("a denial names the hop that narrowed the run", () => {
  const hop = (name: string, allow: string) => narrowingBy(list(allow) as IndexedList, name, `${name}.md`);

  it("after a skill narrows the run, a Write is refused naming the skill and its SKILL.md", () => {
    const main = narrowingBy(list("Read, Write, Bash") as IndexedList, "agent.md", "agent.md");
    const skill = narrowingBy(
      list("Read, Bash(git:*)") as IndexedList,
      "the skill 'notes'",
      "skills/notes/SKILL.md",
    );
    const d = decide(intersect(main, skill), { tool: "Write", input: { file_path: "notes/x.md" } }, JUDGED);
    expect(d).toMatchObject({ reason: "not-offered", narrowedBy: { hop: "the skill 'notes'" } });
    const text = denialText(d as Denial);
    expect(text).toContain("the skill 'notes' (skills/notes/SKILL.md) narrowed this run");
    expect(text).toMatch(/The tool was not executed\.$/);
    expect(deniedNote(d as Denial, "/proj").narrowedBy).toBe("the skill 'notes' (skills/notes/SKILL.md)");
    const git = decide(intersect(main, skill), { tool: "Bash", input: { command: "npm test" } }, JUDGED);
    expect(git).toMatchObject({ reason: "no-pattern-matched", narrowedBy: { hop: "the skill 'notes'" } });
  });

  it("a deny rule's denial names the rule, not a hop", () => {
    const main = narrowingBy(list("Bash", "Bash(rm:*)") as IndexedList, "agent.md", "agent.md");
    const d = decide(intersect(main, hop("x", "Bash")), { tool: "Bash", input: { command: "rm a" } }, JUDGED);
    expect(d).toMatchObject({ reason: "denied-by-rule" });
    expect((d as Denial).narrowedBy).toBeUndefined();
  });

  it("no chain of hops widens, and the hop a denial names is one whose own list refuses the call", () => {
    const lists = ["Read, Bash", "Bash(git:*)", "Read, Write(src/**)", "Bash(git status:*), Read", "Write"];
    const calls: [string, Record<string, unknown>][] = [
      ["Bash", { command: "git status" }],
      ["Bash", { command: "git push" }],
      ["Read", { file_path: "a.txt" }],
      ["Write", { file_path: "src/a.ts" }],
      ["Write", { file_path: "b.md" }],
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: lists.length - 1 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...calls),
        (chain, [tool, input]) => {
          const hops = chain.map((i, n) => hop(`h${n}`, lists[i] as string));
          const d = decide(hops.reduce<PermissionList>(intersect, UNRESTRICTED), { tool, input }, JUDGED);
          const alone = hops.map((h) => decide(h, { tool, input }, JUDGED).kind);
          if (d.kind === "allowed") return alone.every((k) => k === "allowed");
          if (alone.every((k) => k === "allowed")) return true;
          const named = hops.findIndex((h) => h.narrowedBy?.[0]?.hop === d.narrowedBy?.hop);
          return (
            named !== -1 && alone[named] === "denied" && alone.slice(0, named).every((k) => k === "allowed")
          );
        },
      ),
    );
  });
});
