import { symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { loadPaths, loadProject } from "../../src/index.js";
import { it } from "../support/fixture.js";
import { brief } from "../support/fixtures.js";

const agent = (name: string, extra = "") => `---\nname: ${name}\ndescription: d\n${extra}---\nbody\n`;

describe("bad input gets a diagnostic, never a crash or a hang", () => {
  it.for<[string, string | Buffer, string]>([
    ["binary", Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02]), "1:1 error binary-file"],
    ["not UTF-8", Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xc3, 0x28, 0x0a]), "1:1 error not-utf8"],
    ["empty", "", "1:1 error empty-file"],
    ["whitespace only", "  \n\n\t\n", "1:1 error empty-file"],
    [
      "over 1 MiB",
      `---\nname: big\ndescription: d\n---\n${"x".repeat(1024 * 1024)}`,
      "1:1 error file-too-large",
    ],
    ["unclosed block", "---\nname: x\ndescription: y\n", "1:1 error unclosed-frontmatter"],
    ["a list instead of a map", "---\n- a\n- b\n---\nbody\n", "2:1 error yaml-syntax"],
    ["duplicate keys", "---\nname: a\nname: b\ndescription: d\n---\nbody\n", "3:1 error yaml-syntax"],
    ["a tab-indented block", "---\nname: a\n\tdescription: d\n---\nbody\n", "3:1 error yaml-syntax"],
  ])("%s", ([, content, expected], { project }) => {
    const root = project({ "agents/bad.md": content, "agents/good.md": agent("good") });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => brief(d, root))).toEqual([`agents/bad.md:${expected}`]);
    expect(r.definitions.map((d) => d.name)).toEqual(["good"]);
  });

  it("never lets YAML tricks empty or hide a list", ({ project }) => {
    const many = Array.from({ length: 64 }, () => "*ro").join(", ");
    const root = project({
      "agents/aliases.md": `---\nname: aliases\ndescription: d\nx-ro: &ro Read, Grep\nx-many: [${many}]\nallowed-tools: *ro\n---\nB\n`,
      "agents/merge.md":
        "---\nname: merge\ndescription: d\nx-base: &base\n  allowed-tools: Read\n<<: *base\n---\nB\n",
      "agents/early.md": "---\nname: early\ndescription: d\n---x\nallowed-tools: Read\n---\nB\n",
      "commands/late.md": "\n---\ndescription: d\nallowed-tools: Read\n---\nB\n",
      "commands/opener.md": "---yaml\ndescription: d\nallowed-tools: Read\n---\nB\n",
      "agents/cr.md": "---\rname: cr\rdescription: d\rtools: Read\r---\rB\r",
    });
    const r = loadProject(root);
    expect(r.diagnostics.filter((d) => d.severity !== "info").map((d) => brief(d, root))).toEqual([
      "agents/aliases.md:1:1 error yaml-syntax",
      "agents/early.md:4:1 error early-delimiter",
      "agents/merge.md:4:1 warning unknown-key",
      "agents/merge.md:6:1 error merge-key",
      "commands/late.md:2:1 warning frontmatter-not-at-top",
      "commands/opener.md:1:1 warning frontmatter-not-at-top",
    ]);
    expect(
      r.definitions
        .filter((d) => d.surface === "agent")
        .map((d) => [d.name, d.allowedTools?.entries.map((e) => e.name)]),
    ).toEqual([["cr", ["Read"]]]);
  });

  it("reads a long line that is not a key (in linear time: quadratic work took seconds at a fifth of this)", ({
    project,
  }) => {
    const root = project({
      "agents/long.md": `---\nname: long\ndescription: d\na${" ".repeat(60_000)}b\n---\nB\n`,
    });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["yaml-syntax"]);
  });

  it("reports a symlink loop during discovery and still loads the rest", ({ project }) => {
    const root = project({ "agents/a/real.md": agent("real") });
    symlinkSync(path.join(root, "agents"), path.join(root, "agents/a/loop"));
    const r = loadProject(root);
    expect(r.definitions.map((d) => d.name)).toEqual(["real"]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["symlink-loop"]);
  });

  it("follows a symlink to a folder outside once", ({ project }) => {
    const root = project({ "shared/x.md": agent("linked"), "agents/own.md": agent("own") });
    symlinkSync(path.join(root, "shared"), path.join(root, "agents/linked"));
    expect(
      loadProject(root)
        .definitions.map((d) => d.name)
        .sort(),
    ).toEqual(["linked", "own"]);
  });

  it("keeps __proto__ and constructor keys as plain data", ({ project }) => {
    const root = project({
      "agents/p.md": agent(
        "p",
        "__proto__:\n  polluted: true\nconstructor: x\nmetadata:\n  __proto__: {a: 1}\n",
      ),
    });
    const r = loadProject(root);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const d = r.definitions[0];
    expect(Object.hasOwn(d?.frontmatter ?? {}, "__proto__")).toBe(true);
    expect(r.diagnostics.map((x) => x.code)).toEqual(["unknown-key", "unknown-key", "foreign-key"]);
  });

  it("bounds alias expansion (a YAML bomb loads in bounded time and size)", ({ project }) => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
      "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e]",
    ].join("\n");
    const root = project({ "agents/bomb.md": agent("bomb", `${bomb}\n`), "agents/ok.md": agent("ok") });
    const r = loadProject(root);
    expect(r.definitions.map((d) => d.name)).toEqual(["ok"]);
    expect(r.diagnostics.map((d) => brief(d, root))).toEqual(["agents/bomb.md:1:1 error yaml-syntax"]);
  });

  it("warns when a skill description exceeds 1,024 characters", ({ project }) => {
    const root = project({
      "skills/long/SKILL.md": `---\nname: long\ndescription: ${"d".repeat(1025)}\n---\nbody\n`,
    });
    expect(loadProject(root).diagnostics.map((d) => brief(d, root))).toEqual([
      "skills/long/SKILL.md:3:1 warning description-too-long",
    ]);
  });

  it.for([
    "tools:\n",
    "tools: []\n",
    'tools: ""\n',
    'tools: ","\n',
    'tools: [""]\n',
    "allowed-tools: ' , '\n",
  ])("reads an empty list (%j) as a list of nothing, with a warning", (line, { project }) => {
    const root = project({ "agents/e.md": agent("e", line) });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => `${d.code} ${d.severity}`)).toEqual(["empty-tool-list warning"]);
    expect(r.definitions[0]?.allowedTools?.entries).toEqual([]);
  });

  it("rejects a tool list of the wrong type", ({ project }) => {
    const root = project({ "agents/t.md": agent("t", "tools: 42\n") });
    const r = loadProject(root);
    expect(r.diagnostics.map((d) => brief(d, root))).toEqual(["agents/t.md:4:8 error tool-list-type"]);
    expect(r.definitions).toEqual([]);
  });

  it("names a missing path and a file that is not a definition", ({ project }) => {
    const root = project({ "notes/readme.md": "# hi\n" });
    const r = loadPaths([path.join(root, "nope"), path.join(root, "notes/readme.md")]);
    expect(r.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      "error no-such-path",
      "warning not-a-definition",
    ]);
  });
});
