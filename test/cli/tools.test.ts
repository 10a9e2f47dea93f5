import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin, runCli } from "../support/cli.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

// Copied out of this repository: inside it, the repository's own agent.md above would be the root.
const CHAIN = path.join(mkdtempSync(path.join(tmpdir(), "agentmd-chain-")), "chain");
cpSync(`${REPO_ROOT}/test/fixtures/permissions/chain`, CHAIN, { recursive: true });
afterAll(() => rmSync(path.dirname(CHAIN), { recursive: true, force: true }));

describe("agentmd tools", () => {
  it("shows the main agent's effective tools with their origins by default", async () => {
    const r = await runCli(["tools"], { cwd: REPO_ROOT });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  Bash   git status  [agent.md:5:34]\n");
    expect(r.stdout).toContain("         except git push:*  [deny agent.md:6:19]\n");
    expect(r.stdout).toContain("  Write: at main, not in its list\n");
  });

  it("narrows along a chain and names the hop that removed each tool", async () => {
    const r = await runCli(["tools", "--chain", "main,agent:reviewer"], { cwd: REPO_ROOT });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  Bash  git diff:*  [agent.md:5:69, agents/reviewer.md:4:26]\n");
    expect(r.stdout).toContain("  Task: at agent:reviewer, not in its list\n");
    expect(r.stdout).not.toMatch(/^ {2}Task /m);
  });

  it("prints why an empty intersection is refused, and exits 2", async () => {
    const r = await runCli(["tools", "--chain", "main,agent:writer"], { cwd: CHAIN });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("no tool survives this chain: a run here is refused.");
    expect(r.stdout).toContain("  agent:writer allows: Write, Edit\n");
  });

  it("keeps patterns through a skill hop, and drops a skill-folder pattern outside the caller's", async () => {
    const r = await runCli(["tools", "--chain", "main,skill:pdf-tools", "--json"], { cwd: CHAIN });
    const report = JSON.parse(r.stdout);
    const read = report.offered.find((t: { name: string }) => t.name === "Read");
    expect(read.patterns.map((p: { text: string }) => p.text)).toEqual(["/srv/docs/*.pdf"]);
    const bash = report.offered.find((t: { name: string }) => t.name === "Bash");
    expect(bash.patterns[0].admitsNothing).toBe(true);
  });

  it("judges one call with --try: exit 0 when allowed, 3 when denied", async () => {
    const ok = await runCli(
      ["tools", "--chain", "main,agent:reviewer", "--try", "Bash", '{"command":"git diff HEAD"}'],
      { cwd: REPO_ROOT },
    );
    expect([ok.code, ok.stdout]).toEqual([0, "allowed\n"]);
    const no = await runCli(
      ["tools", "--chain", "main,agent:reviewer", "--try", "Bash", '{"command":"rm -rf x"}'],
      { cwd: REPO_ROOT },
    );
    expect(no.code).toBe(3);
    expect(no.stdout).toBe(
      "denied (no-pattern-matched): Bash(rm -rf x) is not allowed: this run allows Bash only for: git diff:*. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.\n",
    );
    const push = await runCli(["tools", "--try", "Bash", '{"command":"git push origin main"}'], {
      cwd: CHAIN,
    });
    expect(push.code).toBe(3);
    expect(push.stdout).toContain("denied (denied-by-rule)");
  });

  it("judges --try as a run's executor does: input normalised first, then the lists, then the schema gate", async () => {
    const tryBash = (input: string) =>
      runCli(["tools", "--chain", "main,agent:reviewer", "--try", "Bash", input], { cwd: REPO_ROOT });
    // A model's input may arrive as a JSON string: a run reads the object inside it.
    const asText = await tryBash(JSON.stringify(JSON.stringify({ command: "git diff HEAD" })));
    expect([asText.code, asText.stdout]).toEqual([0, "allowed\n"]);
    // A run refuses an input its schema does not know, even where the lists allow the command.
    const misspelled = await tryBash('{"command":"git diff HEAD","comand":"x"}');
    expect([misspelled.code, misspelled.stdout]).toEqual([
      3,
      "invalid input: Invalid input for Bash: unknown parameter 'comand'. The tool was not executed.\n",
    ]);
  });

  it("rejects bad usage and unknown hops", async () => {
    expect((await runCli(["tools", "--try", "Bash", "{not json"], { cwd: REPO_ROOT })).code).toBe(2);
    const unknown = await runCli(["tools", "--chain", "main,agent:nobody"], { cwd: CHAIN });
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      "agentmd tools: no agent named 'nobody' is loaded (loaded: reviewer, writer)\n",
    ]);
    expect((await runCli(["tools", "--chain", "main,robot:x"], { cwd: CHAIN })).code).toBe(1);
    const miscased = await runCli(["tools", "--try", "bash", '{"command":"ls"}'], { cwd: CHAIN });
    expect([miscased.code, miscased.stderr]).toEqual([
      2,
      "agentmd tools: there is no tool named 'bash'; did you mean 'Bash'? (a model calling it would be told it is not allowed)\n",
    ]);
  });

  it("refuses to show the tools of an agent.md that does not load, and exits 1", async () => {
    const t = tempDir();
    try {
      writeFiles(t.dir, { "agent.md": "---\nallowed-tools: Read\nallowed-tools: Read\n---\nx\n" });
      const r = await runCli(["tools", "--try", "Bash", '{"command":"rm -rf x"}'], { cwd: t.dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("agent.md cannot be loaded, so a run would be refused");
    } finally {
      t.cleanup();
    }
  });

  it("reports uninterpretable patterns in agentmd check", async () => {
    const r = await runCli(["check"], { cwd: CHAIN });
    expect(r.stdout).toContain(
      "skills/pdf-tools/SKILL.md:4:62: warning: pattern 'Bash(git * x)' cannot be interpreted: a '*' is a wildcard only at the very end, as ':*' or ' *'; it allows nothing [bad-pattern]",
    );
  });

  it("runs from the built bin", () => {
    const r = runBin(
      ["tools", "--chain", "main,agent:reviewer", "--try", "Read", '{"file_path":"README.md"}'],
      { cwd: REPO_ROOT },
    );
    expect([r.code, r.stdout]).toEqual([0, "allowed\n"]);
  });

  it("judges runners, package scripts and bash's network paths under a deny list (the CLI's main(): the test before crosses the built bin)", async () => {
    const t = tempDir();
    try {
      writeFiles(t.dir, {
        "agent.md":
          "---\nallowed-tools: Bash\ndisallowed-tools: Bash(curl:*), Bash(make:*), Bash(cat:*)\n---\nx\n",
        "package.json": JSON.stringify({ scripts: { build: "tsc && make all", test: "vitest run" } }),
      });
      const tryBash = (command: string) =>
        runCli(["tools", "--try", "Bash", JSON.stringify({ command })], {
          cwd: t.dir,
          env: { PATH: process.env.PATH ?? "" },
        });
      for (const command of [
        "setarch x86_64 curl x",
        "/lib64/ld-linux-x86-64.so.2 /usr/bin/curl x",
        "sqlite3 ':memory:' '.shell curl x'",
        "cat < /dev/tcp/127.0.0.1/80",
      ]) {
        const r = await tryBash(command);
        expect([command, r.code, r.stdout]).toEqual([command, 3, expect.stringMatching(/^denied \(/)]);
      }
      const build = await tryBash("npm run build");
      expect([build.code, build.stdout]).toEqual([
        3,
        expect.stringContaining("(in 'npm run build → tsc && make all')"),
      ]);
      expect((await tryBash("npm test")).code).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});
