import { describe, expect, it } from "vitest";
import { decide } from "../../src/permissions/decide.js";
import { allowedNote, deniedNote } from "../../src/permissions/decision-note.js";
import { JUDGED, list } from "../support/permissions.js";

const bash = (command: string) => ({ tool: "Bash", input: { command } });

describe("the decision note: which rule decided, and where it is written", () => {
  it("names the one rule that allows a call alone", () => {
    const l = list("Read, Bash(git:*), Bash(npm test:*)");
    expect(allowedNote(l, bash("npm test"), JUDGED)).toEqual({
      verdict: "allowed",
      rule: "Bash(npm test:*)",
      at: "agent.md:1",
    });
  });

  it("names every rule of the tool when only several together allow a compound line", () => {
    const l = list("Read, Bash(git:*), Bash(npm test:*)");
    const call = bash("git status && npm test");
    expect(decide(l, call, JUDGED).kind).toBe("allowed");
    expect(allowedNote(l, call, JUDGED)).toMatchObject({ rule: "Bash(git:*); Bash(npm test:*)" });
  });

  it("says when no allow-list restricts the run", () => {
    expect(allowedNote(list(null), bash("rm -rf /"), JUDGED)).toEqual({
      verdict: "allowed",
      rule: "every tool (no allow-list)",
    });
  });

  it("names the deny rule that caught a call, as written", () => {
    const l = list("Bash", "Bash(rm:*)");
    const d = decide(l, bash("rm -rf x"), JUDGED);
    expect(d.kind === "denied" && deniedNote(d, "/proj", l)).toMatchObject({
      verdict: "denied",
      reason: "denied-by-rule",
      rule: "Bash(rm:*)",
    });
  });

  it("names the allow rules none of whose patterns matched, and a tool not offered by its reason", () => {
    const l = list("Read, Bash(git:*)");
    const d = decide(l, bash("curl x"), JUDGED);
    expect(d.kind === "denied" && deniedNote(d, "/proj", l)).toMatchObject({
      reason: "no-pattern-matched",
      rule: "Bash(git:*)",
      at: "agent.md:1",
    });
    const w = decide(l, { tool: "Write", input: { file_path: "/proj/a" } }, JUDGED);
    expect(w.kind === "denied" && deniedNote(w, "/proj", l)).toEqual({
      verdict: "denied",
      reason: "not-offered",
    });
  });
});
