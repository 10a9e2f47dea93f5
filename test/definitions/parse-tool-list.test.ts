import { describe, expect, it } from "vitest";
import { misspelledListKey } from "../../src/definitions/check-fields.js";
import { parseEntry, splitToolList } from "../../src/definitions/index.js";

describe("splitToolList: commas and/or whitespace at parenthesis depth 0", () => {
  it.each<[string, string[]]>([
    ["Read", ["Read"]],
    ["Read, Write", ["Read", "Write"]],
    ["Read,Write", ["Read", "Write"]],
    ["Read Write", ["Read", "Write"]],
    ["Read ,  Write\tGrep", ["Read", "Write", "Grep"]],
    ["Bash(git add:*), Read", ["Bash(git add:*)", "Read"]],
    ["Bash(git diff:*) Bash(git log:*)", ["Bash(git diff:*)", "Bash(git log:*)"]],
    ["Bash(echo a, b), Read", ["Bash(echo a, b)", "Read"]],
    ["Bash(f(x)), Read", ["Bash(f(x))", "Read"]],
    ["*", ["*"]],
    ["mcp__github__*, mcp__fs__read_file", ["mcp__github__*", "mcp__fs__read_file"]],
    ["", []],
    [" , ,", []],
    ["Bash(git status", ["Bash(git status"]],
    ["Read)", ["Read)"]],
  ])("%j", (text, expected) => {
    expect(splitToolList(text).map((p) => p.raw)).toEqual(expected);
  });

  it("reports where each entry starts", () => {
    expect(splitToolList("Read,  Bash(git diff:*)")).toEqual([
      { raw: "Read", offset: 0 },
      { raw: "Bash(git diff:*)", offset: 7 },
    ]);
  });
});

describe("parseEntry: syntax only (patterns are the permission engine's)", () => {
  it.each<[string, string]>([
    ["Read", "ok Read"],
    ["Bash(git:*)", "ok Bash git:*"],
    ["Bash(git diff:*)", "ok Bash git diff:*"],
    ["Read(/tmp/**)", "ok Read /tmp/**"],
    ["Read(report(1).csv)", "ok Read report(1).csv"],
    ["Task(reviewer)", "ok Task reviewer"],
    ["WebFetch(domain:example.com)", "ok WebFetch domain:example.com"],
    ["mcp__server__*", "ok mcp__server__*"],
    ["Bash(git status", "error has a '(' that is never closed"],
    ["Bash)git(", "error has a ')' with no '(' before it"],
    ["(git:*)", "error has no tool name before '('"],
    ["Bash()", "error has empty parentheses; write the name alone to allow every call"],
    ["Bash(git:*)x", "error has text after its closing ')'"],
    ["Bash(git log:*)Write(/x)", "error has text after its closing ')'"],
  ])("%s", (raw, expected) => {
    const r = parseEntry(raw);
    const got = r.ok ? ["ok", r.name, r.pattern].filter(Boolean).join(" ") : `error ${r.problem}`;
    expect(got).toBe(expected);
  });
});

describe("misspelled list keys", () => {
  it.each<[string, string | undefined]>([
    ["allowedTools", "allowed-tools"],
    ["allowed_tools", "allowed-tools"],
    ["AllowedTools", "allowed-tools"],
    ["allowed-tool", "allowed-tools"],
    ["alowed-tools", "allowed-tools"],
    ["Allowed-Tools", "allowed-tools"],
    ["allowed tools", "allowed-tools"],
    ["disallowed_tools", "disallowed-tools"],
    ["disallowed-tool", "disallowed-tools"],
    ["disalowedTools", "disallowed-tools"],
    ["tool", "tools"],
    ["Tools", "tools"],
    ["title", undefined],
    ["tags", undefined],
    ["color", undefined],
    ["tool_access", undefined],
    ["deny-tools", "disallowed-tools"],
    ["blocked-tools", "disallowed-tools"],
    ["deniedTools", "disallowed-tools"],
    ["permitted-tools", "allowed-tools"],
    ["model", undefined],
    ["description", undefined],
  ])("%s", (key, expected) => {
    expect(misspelledListKey(key)).toBe(expected);
  });
});
