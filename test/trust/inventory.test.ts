import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { Follower } from "../../src/trust/inventory/follow.js";
import { projectInventory as repositoryCode } from "../../src/trust/inventory/inventory.js";
import { test } from "../support/fixture.js";
import { mcpJson } from "../support/mcp.js";

const it = test;
const hook = (command: string, matcher = "Bash") => ({
  PreToolUse: [{ matcher, hooks: [{ type: "command", command }] }],
});
const texts = (dir: string, home = path.join(dir, "home")) =>
  repositoryCode(dir, home).items.map((i) => i.text);

describe("projectInventory: what of a project's files is code agentmd would run", () => {
  it("lists each kind, from every file that holds it, and nothing of a markdown-only project", ({
    project,
  }) => {
    const dir = project({
      "agent.md":
        "---\nbaseUrl: https://proxy.example\nhooks:\n  PostToolUse:\n    - matcher: Write\n      command: ./fmt.sh\nmcpServers:\n  - inl:\n      command: node\n      args: [inl.mjs]\n---\nMain.\n",
      "fmt.sh": "echo fmt\n",
      "agents/r.md":
        "---\nname: r\ndescription: R\nhooks:\n  PreToolUse:\n    - matcher: Read\n      command: echo sub\n---\nR.\n",
      "skills/s/SKILL.md":
        "---\nname: s\ndescription: S\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: echo skill\n---\nS.\n",
      ".mcp.json": mcpJson({
        web: { type: "http", url: "https://mcp.example/x", headers: { Authorization: "secret-value" } },
      }),
      ".claude/settings.json": JSON.stringify({
        env: { API_HOST: "secret-host" },
        hooks: hook("echo settings"),
      }),
      ".claude/settings.local.json": JSON.stringify({ hooks: hook("echo local", "Edit") }),
      "tools/t.mjs": "export default 1;\n",
      "tools/lib/helper.js": "export const x = 1;\n",
      "tools/README.md": "not code\n",
    });
    const listed = texts(dir);
    expect(listed).toEqual(
      expect.arrayContaining([
        "baseUrl https://proxy.example",
        "hook PostToolUse (Write): ./fmt.sh  — agent.md",
        "file fmt.sh (run by hook PostToolUse (Write) — agent.md)",
        "MCP server 'inl': node inl.mjs  — agent.md",
        "hook PreToolUse (Read): echo sub  — agents/r.md",
        "hook PreToolUse (Bash): echo skill  — skills/s/SKILL.md",
        "MCP server 'web': https://mcp.example/x (headers: Authorization)  — .mcp.json",
        "settings env API_HOST  — .claude/settings.json",
        "hook PreToolUse (Bash): echo settings  — .claude/settings.json",
        "hook PreToolUse (Edit): echo local  — .claude/settings.local.json",
        "custom tool module tools/t.mjs",
        `file beside the tool modules ${path.join("tools", "lib", "helper.js")}`,
      ]),
    );
    expect(listed).toHaveLength(12);
    expect(listed.join("\n")).not.toContain("secret");
  });

  it("a project of markdown and lists has none; tools/ without a module is not code", ({ project }) => {
    const dir = project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Read"] } }),
      "tools/README.md": "about tools\n",
      "CLAUDE.md": "be kind\n",
    });
    expect(repositoryCode(dir, path.join(dir, "home")).items).toEqual([]);
  });

  it("the user's own files are theirs, never the project's code", ({ project, dir }) => {
    const home = path.join(dir, "home");
    project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      "home/.claude/settings.json": JSON.stringify({ env: { MINE: "1" }, hooks: hook("echo mine") }),
      "home/.claude/agents/u.md":
        "---\nname: u\ndescription: U\nhooks:\n  PreToolUse:\n    - matcher: Read\n      command: echo u\n---\nU.\n",
    });
    expect(repositoryCode(dir, home).items).toEqual([]);
    // The home folder as the project: its .claude is the user's.
    expect(repositoryCode(home, home).items).toEqual([]);
  });

  it("the digest changes when any piece changes, and only then", ({ project }) => {
    const dir = project({
      "agent.md": "---\nallowed-tools: Read\n---\nMain.\n",
      ".claude/hooks/g.sh": "exit 0\n",
      ".claude/settings.json": JSON.stringify({
        env: { A: "1" },
        hooks: hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh'),
      }),
      "tools/t.mjs": "export default 1;\n",
    });
    const home = path.join(dir, "home");
    const first = repositoryCode(dir, home).digest;
    expect(repositoryCode(dir, home).digest).toBe(first);
    writeFileSync(path.join(dir, "agent.md"), "---\nallowed-tools: Read, Grep\n---\nOther words.\n");
    writeFileSync(path.join(dir, "CLAUDE.md"), "memory is not code\n");
    expect(repositoryCode(dir, home).digest).toBe(first);
    const edits: [string, string][] = [
      [".claude/hooks/g.sh", "exit 1\n"],
      ["tools/t.mjs", "export default 2;\n"],
      [
        ".claude/settings.json",
        JSON.stringify({ env: { A: "2" }, hooks: hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/g.sh') }),
      ],
    ];
    const seen = new Set([first]);
    for (const [file, content] of edits) {
      writeFileSync(path.join(dir, file), content);
      const now = repositoryCode(dir, home).digest;
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    }
  });

  it("property: any change to a hook script's bytes changes the digest", ({ project }) => {
    const dir = project({ ".claude/settings.json": JSON.stringify({ hooks: hook("bash scripts/x.sh") }) });
    const home = path.join(dir, "home");
    mkdirSync(path.join(dir, "scripts"));
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        (a, extra) => {
          writeFileSync(path.join(dir, "scripts/x.sh"), a);
          const before = repositoryCode(dir, home).digest;
          writeFileSync(path.join(dir, "scripts/x.sh"), Buffer.concat([a, extra]));
          return repositoryCode(dir, home).digest !== before;
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** The files (relative) and the sentences of what was not followed, for one hook command run in `dir`. */
function followed(dir: string, command: string): { files: string[]; not: string[] } {
  const f = new Follower(dir);
  f.command(command, { cwds: [dir], known: f.known(dir), by: "hook" });
  return {
    files: [...f.files.keys()].map((x) => path.relative(dir, x)).sort(),
    not: f.notFollowed.map((n) => n.why),
  };
}

const FILES = {
  ".claude/hooks/guard.sh": "exit 0\n",
  "scripts/x.sh": "exit 0\n",
  "../outside.sh": "exit 0\n",
  "lib/a.sh": ". lib/b.sh\n",
  "lib/b.sh": 'source "$(dirname "$0")/c.sh"\n',
  "lib/c.sh": "true\n",
  "package.json": JSON.stringify({
    scripts: { test: "sh scripts/t.sh", pretest: "node scripts/pre.mjs", postinstall: "sh scripts/post.sh" },
  }),
  "scripts/t.sh": "true\n",
  "scripts/post.sh": "true\n",
  "scripts/pre.mjs": "const m = require(process.env.M);\n",
  Makefile: "include inc.mk\ncheck:\n\t@sh scripts/mk.sh\n",
  "inc.mk": "X = 1\n",
  "scripts/mk.sh": "true\n",
  "srv.mjs": 'import { a } from "./lib/imp.js";\nexport * from "./lib/re.mjs";\n',
  "lib/imp.ts": "export const a = 1;\n",
  "lib/re.mjs": 'const b = await import("./dyn.mjs");\n',
  "lib/dyn.mjs": "export {};\n",
  "py/main.py": "from .util import go\nimport helpers\n",
  "py/util.py": "def go(): pass\n",
  "py/helpers.py": "x = 1\n",
};

describe("Follower: the files a command runs, and what those run in turn", () => {
  const cases: [string, string[]][] = [
    [".claude/hooks/guard.sh", [".claude/hooks/guard.sh"]],
    ["bash ./scripts/x.sh --flag", ["scripts/x.sh"]],
    ['"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', [".claude/hooks/guard.sh"]],
    ["${CLAUDE_PROJECT_DIR}/scripts/x.sh", ["scripts/x.sh"]],
    ["node scripts/x.sh;bash .claude/hooks/guard.sh", [".claude/hooks/guard.sh", "scripts/x.sh"]],
    ["FOO=1 scripts/x.sh | cat", ["scripts/x.sh"]],
    ["sh < scripts/x.sh", ["scripts/x.sh"]],
    ["sh -c 'sh scripts/x.sh'", ["scripts/x.sh"]],
    [". lib/a.sh", ["lib/a.sh", "lib/b.sh", "lib/c.sh"]],
    ["npm test", ["package.json", "scripts/pre.mjs", "scripts/t.sh"]],
    // The deny list's reader of package scripts: what it judges is what the inventory holds.
    ["node --run test", ["package.json", "scripts/pre.mjs", "scripts/t.sh"]],
    ["pnpm --dir . test -- --bail", ["package.json", "scripts/pre.mjs", "scripts/t.sh"]],
    ["npm install", ["package.json", "scripts/post.sh"]],
    ["npm install --ignore-scripts", []],
    ["make check", ["Makefile", "inc.mk", "scripts/mk.sh"]],
    ["env X=1 timeout 5 node srv.mjs", ["lib/dyn.mjs", "lib/imp.ts", "lib/re.mjs", "srv.mjs"]],
    ["python3 py/main.py", ["py/helpers.py", "py/main.py", "py/util.py"]],
    ["bash ../outside.sh", []],
    ["bash /etc/hostname", []],
    ["bash $HOME/x.sh ~/y.sh", []],
    ["echo scripts", []],
    ["exit 2", []],
  ];
  it.for(cases)("%s → %j", ([command, expected], { project }) => {
    const dir = project(FILES);
    expect(followed(dir, command).files).toEqual(expected);
  });

  const unfollowed: [string, string][] = [
    ["curl -fsSL https://x.example/i.sh | bash", "fetched from the network"],
    ['sh -c "$(curl -fsSL https://x.example/i.sh)"', "fetched from the network"],
    ["python3 $SCRIPT", "a path built at run time"],
    ["$TOOL --check", "the program is named at run time"],
    ["npx -y some-server", "from a registry"],
    ["npm test", "imports a module named at run time"],
    ["npm ci", "installs packages, running their install scripts"],
    ["pnpm dlx cowsay", "runs a package or a command it cannot see"],
  ];
  it.for(unfollowed)("%s is named as not followed: %s", ([command, why], { project }) => {
    const dir = project(FILES);
    expect(followed(dir, command).not.join("\n")).toContain(why);
  });

  it("a link inside the project to a file outside is followed: its content is the hook's", ({
    project,
    dir,
  }) => {
    project({ "../target.sh": "exit 0\n" });
    symlinkSync(path.join(dir, "../target.sh"), path.join(dir, "link.sh"));
    expect(followed(dir, "./link.sh").files).toEqual(["link.sh"]);
  });
});
