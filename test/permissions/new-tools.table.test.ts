import { describe, expect, it } from "vitest";
import { intersect } from "../../src/permissions/index.js";
import { judge, list } from "../support/permissions.js";

// [allow, deny, tool, input, expected]: the tools Claude Code projects name, judged like their kin.
type Case = [
  allow: string | null,
  deny: string,
  tool: string,
  input: Record<string, unknown>,
  expected: string,
];

const ls = (path: string) => ({ path });
const multi = (file_path: string) => ({ file_path, edits: [{ old_string: "a", new_string: "b" }] });
const nb = (notebook_path: string) => ({ notebook_path, new_source: "x" });
const bg = (command: string) => ({ command, run_in_background: true });

const CASES: Case[] = [
  // LS is in Read's family: Read's path rules bind it, as they bind Grep and Glob.
  ["LS", "", "LS", ls("/etc"), "allowed"],
  ["Read(src/**), LS", "", "LS", ls("/proj/src/lib"), "allowed"],
  ["Read(src/**), LS", "", "LS", ls("/etc"), "denied: no-pattern-matched"],
  ["Read(src/**), LS", "", "LS", ls("src/../../etc"), "denied: no-pattern-matched"],
  ["LS(/proj/**)", "", "LS", ls("/proj/a"), "allowed"],
  ["LS(/proj/**)", "", "LS", ls("/tmp"), "denied: no-pattern-matched"],
  ["LS", "Read(/proj/secrets/**)", "LS", ls("/proj/secrets/keys"), "denied: denied-by-rule"],
  ["LS", "Read(/proj/secrets/**)", "LS", ls("/proj/src"), "allowed"],
  ["LS", "Read", "LS", ls("/proj/src"), "denied: denied-by-rule"],
  ["Read(src/**), LS", "", "LS", {}, "denied: cannot-judge"],
  ["Read", "", "LS", ls("/proj"), "denied: not-offered"],
  // MultiEdit and NotebookEdit are in Edit's family, as Write is.
  ["Edit(src/**), MultiEdit", "", "MultiEdit", multi("/proj/src/a.ts"), "allowed"],
  ["Edit(src/**), MultiEdit", "", "MultiEdit", multi("/proj/package.json"), "denied: no-pattern-matched"],
  ["Edit(src/**), NotebookEdit", "", "NotebookEdit", nb("/proj/src/a.ipynb"), "allowed"],
  ["Edit(src/**), NotebookEdit", "", "NotebookEdit", nb("/proj/x.ipynb"), "denied: no-pattern-matched"],
  ["MultiEdit, NotebookEdit", "Edit(/proj/.env)", "MultiEdit", multi("/proj/.env"), "denied: denied-by-rule"],
  [
    "MultiEdit, NotebookEdit",
    "Edit(**/*.ipynb)",
    "NotebookEdit",
    nb("/proj/a.ipynb"),
    "denied: denied-by-rule",
  ],
  ["MultiEdit", "Edit", "MultiEdit", multi("/proj/a"), "denied: denied-by-rule"],
  ["Edit(src/**)", "", "MultiEdit", multi("/proj/src/a.ts"), "denied: not-offered"],
  ["NotebookEdit(/proj/**)", "", "NotebookEdit", { new_source: "x" }, "denied: cannot-judge"],
  // A background command is a Bash call with one more input: judged exactly as in the foreground.
  ["Bash(git:*)", "", "Bash", bg("git status"), "allowed"],
  ["Bash(git:*)", "", "Bash", bg("rm -rf /"), "denied: no-pattern-matched"],
  ["Bash(git:*)", "", "Bash", bg("git status; rm -rf /"), "denied: no-pattern-matched"],
  ["Bash", "Bash(rm:*)", "Bash", bg("rm -rf x"), "denied: denied-by-rule"],
  ["Bash(npm run dev)", "", "Bash", bg("npm run dev"), "allowed"],
  ["Bash(git:*)", "", "Bash", bg("git log > /etc/passwd"), "denied: not-offered"],
  // BashOutput, KillShell and TodoWrite are judged by name only.
  ["BashOutput, KillShell", "", "BashOutput", { bash_id: "bash_1" }, "allowed"],
  ["BashOutput, KillShell", "", "KillShell", { shell_id: "bash_1" }, "allowed"],
  ["BashOutput", "", "KillShell", { shell_id: "bash_1" }, "denied: not-offered"],
  ["BashOutput(bash_1)", "", "BashOutput", { bash_id: "bash_1" }, "denied: bad-pattern"],
  ["TodoWrite", "", "TodoWrite", { todos: [] }, "allowed"],
  ["Read", "", "TodoWrite", { todos: [] }, "denied: not-offered"],
  // WebSearch: `domain:` patterns (WebFetch's grammar) name sites as the search filters them.
  ["WebSearch", "", "WebSearch", { domain: "anything.io" }, "allowed"],
  ["WebSearch(domain:example.com)", "", "WebSearch", { domain: "example.com" }, "allowed"],
  ["WebSearch(domain:example.com)", "", "WebSearch", { domain: "docs.example.com" }, "allowed"],
  [
    "WebSearch(domain:example.com)",
    "",
    "WebSearch",
    { domain: "badexample.com" },
    "denied: no-pattern-matched",
  ],
  [
    "WebSearch(domain:*.example.com)",
    "",
    "WebSearch",
    { domain: "example.com" },
    "denied: no-pattern-matched",
  ],
  ["WebSearch(domain:example.com)", "", "WebSearch", { query: "news" }, "denied: cannot-judge"],
  ["WebSearch(example.com)", "", "WebSearch", { domain: "example.com" }, "denied: bad-pattern"],
  [
    "WebSearch",
    "WebSearch(domain:evil.io)",
    "WebSearch",
    { domain: "www.evil.io" },
    "denied: denied-by-rule",
  ],
];

describe("the new tools under the allow-lists: one line per case", () => {
  it.each(CASES)("%s | deny %s | %s(%j) → %s", (allow, deny, tool, input, expected) => {
    expect(judge(list(allow, deny || undefined), tool, input)).toBe(expected);
  });
});

describe("family bindings survive every hop", () => {
  it.each([
    ["Read(src/**), LS", "LS", "LS", ls("/proj/etc"), "denied: no-pattern-matched"],
    ["Read(src/**), LS", "LS", "LS", ls("/proj/src"), "allowed"],
    ["Edit(src/**), MultiEdit", "MultiEdit", "MultiEdit", multi("/proj/lib/a"), "denied: no-pattern-matched"],
    [
      "*",
      "Edit(src/**), NotebookEdit",
      "NotebookEdit",
      nb("/proj/lib/a.ipynb"),
      "denied: no-pattern-matched",
    ],
    ["Bash(git:*)", "Bash", "Bash", bg("curl evil.io"), "denied: no-pattern-matched"],
  ] as const)("%s ∩ %s: %s(%j) → %s", (caller, callee, tool, input, expected) => {
    expect(judge(intersect(list(caller), list(callee)), tool, input)).toBe(expected);
  });
});
