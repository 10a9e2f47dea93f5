import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runBin, runCli } from "../support/cli.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { mcpJson, stdioServer } from "../support/mcp.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * `agentmd audit` through the CLI, on a project with three-hop chains (planner → coder → tester),
 * forks (one as a subagent), an inline skill, a user-only skill, a command whose tool a deny
 * empties, an agent nothing survives for, and deny rules in agent.md and in the settings.
 */
// Copied out of this repository: inside it, the repository's own agent.md above would be the root.
const THREE_HOPS = path.join(mkdtempSync(path.join(tmpdir(), "agentmd-audit-")), "three-hops");
cpSync(path.join(REPO_ROOT, "test/fixtures/audit/three-hops"), THREE_HOPS, { recursive: true });
afterAll(() => rmSync(path.dirname(THREE_HOPS), { recursive: true, force: true }));

/** The lines of one entry point's section of the text report. */
function section(out: string, name: string): string[] {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`${name}  `));
  if (start === -1) throw new Error(`no section for ${name} in:\n${out}`);
  const end = lines.findIndex((l, i) => i > start && l === "");
  return lines.slice(start, end === -1 ? undefined : end);
}

/** The grant rows printed under one chain of a section, up to the next chain. */
function rowsOf(lines: readonly string[], chain: string): string[] {
  const at = lines.findIndex((l) => l.startsWith(`  ${chain}  `) || l === `  ${chain}`);
  if (at === -1) throw new Error(`no chain ${chain} in:\n${lines.join("\n")}`);
  const rest = lines.slice(at + 1);
  const next = rest.findIndex((l) => !l.startsWith("    "));
  return (next === -1 ? rest : rest.slice(0, next)).map((l) => l.trim().replace(/ {2,}/g, "  "));
}

const temps: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of temps.splice(0)) cleanup();
});
function temp(): string {
  const t = tempDir();
  temps.push(t.cleanup);
  return t.dir;
}

describe("agentmd audit: every entry point and every chain", () => {
  it("lists the entry points a user has: main, each /command and user-invocable skill, each --agent", async () => {
    const r = await runCli(["audit"], { cwd: THREE_HOPS });
    expect(r.code).toBe(0);
    const entries = r.stdout.split("\n").filter((l) => /^\S/.test(l) && l.includes("  ["));
    expect(entries.map((l) => l.split("  ")[0])).toEqual([
      "main",
      "/fmt",
      "/lint",
      "/notes",
      "/secret",
      "/ship",
      "/style",
      "--agent checker",
      "--agent coder",
      "--agent planner",
      "--agent tester",
      "--agent writer",
    ]);
    expect(r.stdout).toContain("project: ");
    expect(r.stdout).toContain("settings: .claude/settings.json\n");
    expect(r.stdout).toContain("depth limit: 3 (maxDepth)");
  });

  it("follows a three-hop chain and names every entry, hop by hop, that shaped its tools", async () => {
    const r = await runCli(["audit"], { cwd: THREE_HOPS });
    const planner = section(r.stdout, "--agent planner");
    expect(rowsOf(planner, "main → agent:planner → agent:coder → agent:tester")).toEqual([
      "Read except Read(secrets/**)  agent.md:3:16, agents/planner.md:4:8, agents/coder.md:4:8, agents/tester.md:4:8, deny .claude/settings.json:3:15",
      "Bash(npm test) except Bash(git push:*)  agent.md:3:56, agents/planner.md:4:35, agents/coder.md:4:29, agents/tester.md:4:20, deny agent.md:4:19",
      "Task(coder)  agent.md:3:97, agents/planner.md:4:51, agents/coder.md:4:63, agents/tester.md:4:36",
    ]);
    // Grep is the tester's, but the coder in between has none: the hop removed it.
    expect(rowsOf(planner, "main → agent:planner → agent:tester").map((l) => l.split("  ")[0])).toEqual([
      "Read except Read(secrets/**)",
      "Grep except Read(secrets/**)",
      "Bash(npm test) except Bash(git push:*)",
      "Task(coder)",
    ]);
    // The tester reached through the coder can do less than the one the planner starts itself:
    // its tools are its own, and what it could start, that one can (so it is not walked further).
    expect(planner).toContain(
      "  main → agent:planner → agent:coder → agent:tester  (Task) — a narrower run than main → agent:planner → agent:tester: not followed further",
    );
    // A run already reached with the same tools is said, not walked again (this ends cycles).
    expect(planner).toContain(
      "  main → agent:planner → agent:coder → agent:coder  (Task) — the same run as main → agent:planner → agent:coder: not followed again",
    );
  });

  it("shows forks as runs of their own, a fork as a subagent, and inline skills narrowing their run", async () => {
    const r = await runCli(["audit"], { cwd: THREE_HOPS });
    const main = section(r.stdout, "main");
    expect(rowsOf(main, "main → skill:lint  (Skill, fork as agent:checker)")).toEqual([
      "Read except Read(secrets/**)  agent.md:3:16, skills/lint/SKILL.md:4:16, agents/checker.md:4:8, deny .claude/settings.json:3:15",
      "Bash(git diff:*) except Bash(git push:*)  agent.md:3:43, skills/lint/SKILL.md:4:22, agents/checker.md:4:14, deny agent.md:4:19",
    ]);
    expect(rowsOf(main, "main → skill:fmt  (Skill, fork)").map((l) => l.split("  ")[0])).toEqual([
      "Read except Read(secrets/**)",
      "Write(src/**)",
    ]);
    expect(main).toContain(
      "  main → skill:style  (Skill, inline: narrows this run; what it could start, the run can already)",
    );
    // The coder may not start the checker that lint runs as: that fork is refused, and said why.
    expect(main.join("\n")).toMatch(
      /main → agent:coder → skill:lint {2}\(Skill, fork as agent:checker\) — not started: .*Task\(checker\) is not allowed/,
    );
    expect(r.stdout).not.toContain("The tool was not executed");
    // A skill with disable-model-invocation is a user's entry point, never a model's hop.
    expect(main.join("\n")).not.toContain("skill:secret");
    expect(section(r.stdout, "/secret")).toContain("  can do: Bash(git:*) except Bash(git push:*)");
  });

  it("joins the deny rules of agent.md and the settings at every hop; a tool a deny empties is no capability", async () => {
    const r = await runCli(["audit"], { cwd: THREE_HOPS });
    const ship = section(r.stdout, "/ship");
    expect(ship).toContain("  can do: Read except Read(secrets/**), Bash(git tag:*) except Bash(git push:*)");
    expect(rowsOf(ship, "main → command:ship")).toContain(
      "Bash(git push:*) except Bash(git push:*) — admits nothing  agent.md:3:43, commands/ship.md:3:22, deny agent.md:4:19",
    );
    const writer = section(r.stdout, "--agent writer");
    expect(writer).toContain("  can do: nothing");
    expect(writer.join("\n")).toContain("main → agent:writer — not started: ");
  });

  it("marks dangerous capabilities with the chain that reaches them", async () => {
    const r = await runCli(["audit"], { cwd: THREE_HOPS });
    expect(section(r.stdout, "main")[1]).toBe(
      "  chains: 18 · commands sandboxed: none · dangerous: WebFetch reaches any domain (main)",
    );
    expect(section(r.stdout, "--agent coder")[1]).toContain("dangerous: none");

    const dir = temp();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Task(ops)\n---\nx\n",
      "agents/ops.md": "---\nname: ops\ndescription: d\n---\nx\n",
    });
    const open = await runCli(["audit"], { cwd: dir });
    // The subagent has no list of its own: everything the main agent allows, nothing more.
    expect(section(open.stdout, "main")[1]).toContain("dangerous: none");
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Bash, Write(/tmp/**), Task(ops)\n---\nx\n" });
    const wide = await runCli(["audit"], { cwd: dir });
    expect(section(wide.stdout, "main")[1]).toContain(
      "dangerous: Write writes outside the project (main); Bash runs any command (main)",
    );
    expect(section(wide.stdout, "--agent ops")[1]).toContain(
      "dangerous: Write writes outside the project (main → agent:ops); Bash runs any command (main → agent:ops)",
    );
  });

  it("says which runs are sandboxed", async () => {
    const dir = temp();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Bash(npm test), Task(boxed)\n---\nx\n",
      "agents/boxed.md":
        "---\nname: boxed\ndescription: d\ntools: Read, Bash(npm test)\nsandbox: true\n---\nx\n",
    });
    const r = await runCli(["audit"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(section(r.stdout, "main")[1]).toContain("commands sandboxed: some");
    expect(section(r.stdout, "main")).toContain("  main → agent:boxed  (Task)  [sandboxed]");
    expect(section(r.stdout, "--agent boxed")[1]).toContain("commands sandboxed: all");
  });

  it("--json: entry points, their capabilities with origins, run by run, and every chain", async () => {
    const r = await runCli(["audit", "--json"], { cwd: THREE_HOPS });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.version).toBe(1);
    expect(report.settings).toEqual([".claude/settings.json"]);
    const planner = report.entryPoints.find((e: { name: string }) => e.name === "--agent planner");
    expect(planner.kind).toBe("agent");
    expect(planner.file).toBe("agents/planner.md");
    const three = planner.chains.find(
      (c: { chain: string[] }) => c.chain.join(",") === "main,agent:planner,agent:coder,agent:tester",
    );
    expect(three.hop).toBe("task");
    expect(three.depth).toBe(2);
    expect(three.tools.map((t: { text: string }) => t.text)).toEqual([
      "Read except Read(secrets/**)",
      "Bash(npm test) except Bash(git push:*)",
      "Task(coder)",
    ]);
    expect(three.tools[0].shapedBy).toEqual([
      "agent.md:3:16",
      "agents/planner.md:4:8",
      "agents/coder.md:4:8",
      "agents/tester.md:4:8",
      "deny .claude/settings.json:3:15",
    ]);
    expect(planner.runs.map((run: { as: string }) => run.as)).toEqual([
      "agent:planner",
      "agent:coder",
      "agent:tester",
      "skill:fmt",
      "skill:notes",
    ]);
    const main = report.entryPoints.find((e: { name: string }) => e.name === "main");
    expect(main.dangers).toEqual([
      { kind: "any-domain", tool: "WebFetch", text: "WebFetch reaches any domain", chain: ["main"] },
    ]);
    const ship = report.entryPoints.find((e: { name: string }) => e.name === "/ship");
    expect(ship.chains[0].tools.find((t: { admitsNothing?: boolean }) => t.admitsNothing).tool).toBe("Bash");
  });

  it("--graph writes a self-contained SVG or HTML page: entry points on the left, labelled hops, dangers marked", () => {
    const dir = temp();
    const svg = runBin(["audit", THREE_HOPS, "--graph", path.join(dir, "audit.svg")], { cwd: dir });
    expect(svg.code).toBe(0);
    expect(svg.stderr).toContain("wrote an SVG to");
    expect(svg.stdout).toContain("--agent planner  [agents/planner.md]");
    const picture = readFileSync(path.join(dir, "audit.svg"), "utf8");
    expect(picture.startsWith("<svg xmlns=")).toBe(true);
    selfContained(picture);
    // Entry points are boxes in the first column; a hop's box is further right, its edge labelled.
    const boxAt = (title: string) =>
      Number(
        new RegExp(
          `<rect class="\\w+" x="(\\d+)"[^>]*/><text class="title" x="\\d+" y="\\d+">${title}<`,
        ).exec(picture)?.[1],
      );
    expect(boxAt("main")).toBe(24);
    expect(boxAt("--agent planner")).toBe(24);
    expect(boxAt("agent:tester")).toBeGreaterThan(24);
    expect(picture).toContain(">Skill (fork)<");
    expect(picture).toMatch(/>removes [^<]*WebFetch/);
    expect(picture).toContain('<rect class="danger"');
    expect(picture).toContain("⚠ WebFetch reaches any domain");
    expect(picture).toContain('<rect class="failed"');

    const html = runBin(["audit", THREE_HOPS, "--graph", "audit.html"], { cwd: dir });
    expect(html.code).toBe(0);
    expect(html.stderr).toContain("wrote an HTML page to audit.html");
    const page = readFileSync(path.join(dir, "audit.html"), "utf8");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page).toContain("<svg xmlns=");
    selfContained(page);
  });

  it("reads MCP servers as the settings let them start, and lists their tools with --mcp", async () => {
    const dir = temp();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read, Task(triager)\n---\nx\n",
      "agents/triager.md": "---\nname: triager\ndescription: d\ntools: Read, mcp__github\n---\nx\n",
      ".mcp.json": mcpJson({ github: stdioServer("github"), off: stdioServer("fails-to-start") }),
      ".claude/settings.json": JSON.stringify({
        disabledMcpjsonServers: ["off"],
        permissions: { deny: ["mcp__github__create_issue"] },
      }),
    });
    const byName = await runCli(["audit"], { cwd: dir });
    expect(byName.code).toBe(0);
    expect(byName.stdout).toContain(
      "MCP servers: github (tools by name; --mcp starts them to list their tools)\n",
    );
    // agent.md does not allow them: the subagent's list cannot widen the main agent's.
    expect(section(byName.stdout, "--agent triager")).toContain("  can do: Read");

    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read, Task(triager), mcp__github\n---\nx\n" });
    const home = path.join(dir, "home");
    trustProject(dir, home);
    const listed = await runCli(["audit", "--mcp"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: home },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      "MCP servers (started to list their tools, then stopped): github: 4 tools\n",
    );
    // The server's tools one by one; the one the settings deny is an exception, not a capability.
    expect(rowsOf(section(listed.stdout, "--agent triager"), "main → agent:triager")).toEqual([
      "Read  agent.md:2:16, agents/triager.md:4:8",
      "mcp__github__* except mcp__github__create_issue  agent.md:2:37, agents/triager.md:4:14, deny .claude/settings.json:1:59",
      "mcp__github__get_issue  agent.md:2:37, agents/triager.md:4:14",
      "mcp__github__list_issues  agent.md:2:37, agents/triager.md:4:14",
      "mcp__github__whoami  agent.md:2:37, agents/triager.md:4:14",
    ]);
  });
});

describe("agentmd audit: usage", () => {
  it("--help lists every flag with an example", async () => {
    const r = await runCli(["audit", "--help"], { cwd: THREE_HOPS });
    expect(r.code).toBe(0);
    for (const flag of ["--json", "--graph FILE", "--diff REV", "--mcp", "-h, --help"])
      expect(r.stdout).toContain(`  ${flag}`);
    expect(r.stdout).toContain("agentmd audit --diff origin/main");
    expect(r.stdout).toContain("Example");
  });

  it("names the nearest flag for an unknown one, and refuses what is not a folder", async () => {
    const typo = await runCli(["audit", "--grpah", "x.svg"], { cwd: THREE_HOPS });
    expect([typo.code, typo.stderr.split("\n")[0]]).toEqual([
      2,
      "agentmd: unknown option '--grpah'; did you mean '--graph'?",
    ]);
    const missing = await runCli(["audit", "no-such-folder"], { cwd: THREE_HOPS });
    expect([missing.code, missing.stderr]).toEqual([2, "agentmd audit: no-such-folder is not a folder\n"]);
    const two = await runCli(["audit", "a", "b"], { cwd: THREE_HOPS });
    expect(two.code).toBe(2);
    expect((await runCli(["audit", "--graph", ""], { cwd: THREE_HOPS })).code).toBe(2);
  });

  it("refuses to audit a project whose agent.md does not load, and exits 1", async () => {
    const dir = temp();
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nallowed-tools: Read\n---\nx\n" });
    const r = await runCli(["audit"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("agent.md or the settings cannot be loaded");
  });
});

/** No script, no link, no resource fetched from anywhere: the file is the whole picture. */
function selfContained(text: string): void {
  const withoutNamespace = text.replaceAll('xmlns="http://www.w3.org/2000/svg"', "");
  expect(withoutNamespace).not.toMatch(/https?:\/\//);
  expect(text).not.toMatch(/<script|<link|<img|href=|src=|@import|url\(/i);
}
