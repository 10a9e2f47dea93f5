import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRunner } from "../../src/invocation/runner.js";
import type { Hooks } from "../../src/loop/hooks.js";
import { runBin, runCli } from "../support/cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { REPO_ROOT, tempDir } from "../support/fixtures.js";
import { drain } from "../support/runs.js";
import { writeFiles } from "../support/tools.js";

const README = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
/** The files `npm pack` puts in the package: asked of npm once for the whole file. */
let packedFiles: Set<string> | undefined;
const packed = (): Set<string> => {
  packedFiles ??= new Set(
    (
      JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
          cwd: REPO_ROOT,
          encoding: "utf8",
        }),
      ) as { files: { path: string }[] }[]
    )[0]?.files.map((f) => f.path),
  );
  return packedFiles;
};
const cleanups: (() => void)[] = [];
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const c of cleanups.splice(0)) c();
});
const temp = () => {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
};

describe("the README's truths", () => {
  it("says the package is not on the registry yet and how to install it today", () => {
    const install = README.slice(README.indexOf("## Install"), README.indexOf("## Two commands"));
    expect(install).toContain("not on the npm registry yet");
    expect(install.indexOf("npm pack")).toBeLessThan(install.indexOf("npm install -g agentmd-cli"));
  });

  it("its library hook example blocks a sudo command and lets every other call run", async () => {
    const hookLine = /hooks: \{ PreToolUse: \[\{ matcher: "Bash", run: (.*) \}\] \},$/m.exec(README);
    expect(hookLine).not.toBeNull();
    const run = new Function(`return ${hookLine?.[1]}`)() as Hooks["PreToolUse"] extends
      | readonly (infer H)[]
      | undefined
      ? H extends { run: infer R }
        ? R
        : never
      : never;
    const dir = temp();
    fake = await startFakeAnthropic([
      { kind: "message", content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi" } }] },
      { kind: "message", content: [{ type: "tool_use", name: "Bash", input: { command: "sudo ls" } }] },
      { kind: "message", content: [{ type: "text", text: "done" }] },
    ]);
    const runner = createRunner({
      cwd: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
      main: { name: "m", "allowed-tools": "Bash", body: "x" },
      hooks: { PreToolUse: [{ matcher: "Bash", run }] },
    });
    const { events } = await drain(runner.run("go"));
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => e.type === "tool_end" && [e.isError, e.content.trim()])).toEqual([
      [false, expect.stringContaining("hi")],
      [true, expect.stringContaining("no sudo")],
    ]);
    await runner.close();
  });
});

describe("the package as a consumer gets it", () => {
  it("the no-key hint names nothing the installed package lacks", () => {
    const files = packed();
    const r = runBin(["run", "x"], { cwd: temp(), env: { PATH: process.env.PATH ?? "" } });
    expect(r.stderr).toMatch(/^agentmd: no API key/);
    // The demo is named as a clone's, not as a file of the package.
    if (!files.has("demo/session.jsonl")) expect(r.stderr).toContain("in a clone of its repository");
    expect(files.has("dist/bundle/index.d.ts")).toBe(true);
  }, 60_000);
});

describe("the package carries what its help names", () => {
  it("every docs/*.md a help text or the README names is in the package", async () => {
    const files = packed();
    const commands = ["", "run", "chat", "check", "tools", "audit", "mcp", "init", "sessions", "plugin"];
    const more = ["trust", "batch", "worker", "enqueue", "view"];
    // The help texts are the sources' (one command's start-up is checked in test/cli): read in
    // this process, not by starting the CLI fifteen times.
    const helps: string[] = [];
    for (const c of [...commands, ...more])
      helps.push((await runCli(c ? [c, "--help"] : ["--help"], { cwd: temp() })).stdout);
    const named = new Set([...helps.join("\n"), README].join("\n").match(/docs\/[\w-]+\.md/g));
    expect(named.size).toBeGreaterThan(3);
    for (const doc of named) expect(files.has(doc), doc).toBe(true);
  }, 120_000);

  it("has a bin named like the package beside agentmd: npx agentmd-cli runs it", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      name: string;
      version: string;
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ agentmd: "bin/agentmd", [pkg.name]: "bin/agentmd" });
    expect(packed().has("bin/agentmd")).toBe(true);
    // A project with the package installed, linked as npm links a dependency's bins.
    const dir = temp();
    mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(REPO_ROOT, path.join(dir, "node_modules", pkg.name));
    symlinkSync(`../${pkg.name}/bin/agentmd`, path.join(dir, "node_modules", ".bin", pkg.name));
    writeFiles(dir, { "package.json": JSON.stringify({ name: "x", devDependencies: { [pkg.name]: "*" } }) });
    const r = spawnSync("npx", ["--offline", pkg.name, "--version"], { cwd: dir, encoding: "utf8" });
    expect(r.stdout).toBe(`${pkg.version} (agentmd-cli)\n`);
  }, 60_000);
});

describe("what a run leaves in the repository it touched", () => {
  it("a .agentmd/ it creates ignores itself: git status stays clean", async () => {
    const dir = temp();
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\n---\nx\n" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", "add", "agent.md"], { cwd: dir });
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"], { cwd: dir });
    fake = await startFakeAnthropic([{ kind: "message", content: [{ type: "text", text: "hi" }] }]);
    const runner = createRunner({
      projectDir: dir,
      cwd: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
    });
    await drain(runner.run("go"));
    expect(existsSync(path.join(dir, ".agentmd", "sessions"))).toBe(true);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" })).toBe("");
  });

  it("a .gitignore of a user's own in .agentmd/ is left as it is", async () => {
    const dir = temp();
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Read\n---\nx\n",
      ".agentmd/.gitignore": "sessions/\n",
    });
    fake = await startFakeAnthropic([{ kind: "message", content: [{ type: "text", text: "hi" }] }]);
    const runner = createRunner({
      projectDir: dir,
      cwd: dir,
      env: {},
      model: { apiKey: "k", baseURL: fake.url },
    });
    await drain(runner.run("go"));
    expect(readFileSync(path.join(dir, ".agentmd", ".gitignore"), "utf8")).toBe("sessions/\n");
  });
});

describe("agentmd init", () => {
  it("in a .claude/ project says that agent.md changes the project's ceiling", () => {
    const dir = temp();
    writeFiles(dir, { ".claude/settings.json": "{}\n" });
    const r = runBin(["init"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("its allowed-tools list is the ceiling of every run");
  });

  it("in a fresh folder says nothing of a ceiling", () => {
    const dir = temp();
    writeFileSync(path.join(dir, "x"), "");
    const r = runBin(["init"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("ceiling");
  });
});
