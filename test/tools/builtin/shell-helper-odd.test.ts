import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../../src/permissions/shell/parse-shell.js";
import type { ProcessResult } from "../../../src/shared/run-process.js";
import { helperCanRun, readyShellHelper, shellSpawn } from "../../../src/tools/builtin/shell-helper.js";
import { quoted } from "../../../src/tools/builtin/shell-helper-script.js";
import { runShell } from "../../../src/tools/builtin/shell-process.js";
import { createBashTool } from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { run, text, toolContext } from "../../support/tools.js";
import { until } from "../../support/until.js";

/**
 * The shell helper against a user's odd environment and a hostile local process: each command
 * must read as `bash -c` started directly reads it (the helper or a direct start, whichever runs
 * it), and nothing a stranger does to the helper's port may stay in agentmd.
 */
const linux = process.platform === "linux";
let dir: string;
let cleanup: () => void;
let base: Record<string, string | undefined>;

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  base = { ...process.env, AGENTMD_TEST_MARK: "helper-odd" };
  delete base.ANTHROPIC_API_KEY;
  delete base.ANTHROPIC_AUTH_TOKEN;
});
afterAll(() => cleanup());

type Env = Record<string, string | undefined>;
const options = (env: Env, cwd: string) => ({
  cwd,
  env,
  maxChars: 30_000,
  signal: new AbortController().signal,
  timeoutMs: 10_000,
});
const outcome = (r: ProcessResult) => ({
  kind: r.kind,
  code: r.kind === "exited" ? r.code : undefined,
  output: r.stdout.text(),
});
/** The command through the helper (started and ready first) and directly: both outcomes. */
async function both(command: string, env: Env) {
  await readyShellHelper(env);
  const helper = outcome(await runShell(command, { ...options(env, dir), spawn: shellSpawn }));
  const direct = outcome(await runShell(command, options(env, dir)));
  return { helper, direct };
}
const PARENT = "ps -o ppid= -p $BASHPID";

describe.runIf(linux)("the shell helper in an odd environment", () => {
  // First: each environment has a helper of its own, and a process keeps only a few.
  it.each(["-5", "+3", " 7", "999", "x"])(
    "gives SHLVL=%j what bash -c gives (its warning too)",
    async (level) => {
      const r = await both('{ echo "$SHLVL"; declare -p SHLVL; } >&2', { ...base, SHLVL: level });
      expect(r.helper).toEqual(r.direct);
    },
  );

  it("keeps a PWD that names the folder through a symbolic link, as bash -c does (pwd, cd ..)", async () => {
    const link = path.join(dir, "link");
    symlinkSync(dir, link);
    const env = { ...base, PWD: link, _: "/usr/bin/agentmd-test" };
    const ready = await readyShellHelper(env);
    expect(ready).toBeDefined();
    const r = await both('echo "$_"; pwd; echo "$PWD"; cd ..; pwd; echo "$OLDPWD"', env);
    expect(r.helper).toEqual(r.direct);
    expect(r.direct.output.split("\n").slice(0, 2)).toEqual(["/usr/bin/agentmd-test", link]);
    // It did go through the helper.
    const parent = await runShell(PARENT, { ...options(env, dir), spawn: shellSpawn });
    expect(parent.stdout.text().trim()).toBe(`${ready?.pid}`);
  });

  it("reads what bash -c reads with a PWD that is not absolute and no $_ in the environment", async () => {
    const env: Env = { ...base, PWD: "." };
    delete env._;
    expect(await readyShellHelper(env)).toBeDefined();
    const r = await both('echo "$_"; pwd; echo "$PWD"', env);
    expect(r.helper).toEqual(r.direct);
  });

  it("counts line numbers from the command's first line when what it keeps holds a newline", async () => {
    const folder = path.join(dir, "new\nline");
    mkdirSync(folder);
    const env = { ...base, PWD: folder, OLDPWD: "/tmp\nx", _: "/a\nb", TMOUT: "7\n" };
    expect(await readyShellHelper(env)).toBeDefined();
    const command = 'echo "$LINENO $_"\necho "$LINENO $PWD $OLDPWD $TMOUT"; pwd';
    const helper = outcome(await runShell(command, { ...options(env, folder), spawn: shellSpawn }));
    expect(helper).toEqual(outcome(await runShell(command, options(env, folder))));
    expect(helper.output.startsWith("1 /a\nb\n2 ")).toBe(true);
  });

  it("keeps any value it quotes into its script, on one line (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).filter((v) => !v.includes("\0")),
        (value) => {
          expect(quoted(value)).not.toMatch(/[\n\r]/);
          const back = execFileSync("bash", ["-c", `printf %s ${quoted(value)}`], { encoding: "utf8" });
          expect(back).toBe(Buffer.from(value, "utf8").toString("utf8"));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("counts $SECONDS from the command's start, not the helper's (the Bash tool starts it directly)", async () => {
    const env = base;
    const ready = await readyShellHelper(env);
    expect(ready).toBeDefined();
    // Once the helper is three seconds old, a command that has run less than two is not one of its own.
    await until(() => age(ready?.pid) >= 3, {
      what: "the helper to be three seconds old",
      timeoutMs: 10_000,
    });
    const command = `age=$(ps -o etimes= -p ${ready?.pid}); echo $(( SECONDS + 1 < age ))`;
    expect(text(await run(createBashTool(), { command }, { ...toolContext(dir), env }))).toBe(
      "1\n[exit code 0]",
    );
    expect(helperCanRun("echo ${SECONDS}", await loadShellParser())).toBe(false);
  });
});

describe.runIf(linux)("the Bash tool and what only a direct start gives as bash -c does", () => {
  const inTool = (command: string) => run(createBashTool(), { command }, { ...toolContext(dir), env: base });

  it.each([
    // A previous command's subshell would be the helper's last background job.
    ['true; echo "[$!] [${!}]"', "[] []\n[exit code 0]"],
    ["kill -0 $! 2>/dev/null; echo $?", "2\n[exit code 0]"],
    // bash -c ends with 127 on an unset variable under set -u, a subshell with 1.
    ["set -u; echo $nope", "bash: line 1: nope: unbound variable\n[exit code 127]"],
    ["set -o nounset; echo $nope", "bash: line 1: nope: unbound variable\n[exit code 127]"],
    ["echo ${nope:?is needed}", "bash: line 1: nope: is needed\n[exit code 127]"],
    ["echo ${nope?}", "bash: line 1: nope: parameter not set\n[exit code 127]"],
  ])("%s", async (command, told) => {
    expect(await readyShellHelper(base)).toBeDefined();
    await inTool("echo warm");
    expect(text(await inTool(command))).toBe(told);
  });
});

describe.runIf(linux)("a line bash -c would not run: its own message, never eval's", () => {
  it.each([
    ["}", "bash: -c: line 1: syntax error near unexpected token `}'\nbash: -c: line 1: `}'\n[exit code 2]"],
    [
      "echo a;;",
      "bash: -c: line 1: syntax error near unexpected token `;;'\nbash: -c: line 1: `echo a;;'\n[exit code 2]",
    ],
    ["-x", "bash: -c: option requires an argument\n[exit code 2]"],
  ])("%s", async (command, told) => {
    expect(await readyShellHelper(base)).toBeDefined();
    const r = text(await run(createBashTool(), { command }, { ...toolContext(dir), env: base }));
    expect(r.startsWith(told)).toBe(true);
  });
});

describe.runIf(linux)("the shell helper against a stranger on its port", () => {
  it("closes a connection that never presents a token, once the command it could be has connected", async () => {
    const env = { ...base };
    const ready = await readyShellHelper(env);
    expect(ready).toBeDefined();
    const stranger = net.connect(ready?.port ?? -1, "127.0.0.1");
    stranger.on("error", () => {});
    const closed = new Promise<void>((resolve) => stranger.once("close", () => resolve()));
    await new Promise((resolve) => stranger.once("connect", resolve));
    const r = await runShell("echo real", { ...options(env, dir), spawn: shellSpawn });
    expect(outcome(r)).toEqual({ kind: "exited", code: 0, output: "real\n" });
    let isClosed = false;
    void closed.then(() => (isClosed = true));
    await until(() => isClosed, { what: "the stranger's connection to be closed", timeoutMs: 5000 });
  });
});

/** How many whole seconds a process has been running. */
function age(pid: number | undefined): number {
  return Number(execFileSync("ps", ["-o", "etimes=", "-p", String(pid)], { encoding: "utf8" }).trim());
}
