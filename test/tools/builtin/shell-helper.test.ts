import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../../src/permissions/shell/parse-shell.js";
import type { ProcessResult } from "../../../src/shared/run-process.js";
import { helperCanRun, readyShellHelper, shellSpawn } from "../../../src/tools/builtin/shell-helper.js";
import { runShell } from "../../../src/tools/builtin/shell-process.js";
import { createBashTool } from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { alive } from "../../support/processes.js";
import { run, text, toolContext } from "../../support/tools.js";
import { until } from "../../support/until.js";

/**
 * Bash's commands run by the shell helper (a small long-lived bash) must read exactly as `bash -c`
 * started by agentmd itself: the same output, in the same order, the same exit code, environment,
 * folder and bash variables. Each case runs both ways and compares; that a command really went
 * through the helper is checked by its parent process (the helper, not this process).
 */
const linux = process.platform === "linux";
let dir: string;
let cleanup: () => void;
/** The environment every command here gets, as the Bash tool gives it. */
let env: Record<string, string | undefined>;
let helper: { pid: number; port: number };

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  env = { ...process.env, AGENTMD_TEST_MARK: "helper-test" };
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_AUTH_TOKEN;
  const ready = linux ? await readyShellHelper(env) : undefined;
  if (linux) expect(ready).toBeDefined();
  helper = ready ?? { pid: -1, port: -1 };
});
afterAll(() => cleanup());

const byHelper = (command: string, o: { cwd?: string; timeoutMs?: number; signal?: AbortSignal } = {}) =>
  runShell(command, {
    cwd: o.cwd ?? dir,
    env,
    maxChars: 30_000,
    signal: o.signal ?? new AbortController().signal,
    timeoutMs: o.timeoutMs ?? 10_000,
    spawn: shellSpawn,
  });
const directly = (command: string, cwd = dir) =>
  runShell(command, { cwd, env, maxChars: 30_000, signal: new AbortController().signal, timeoutMs: 10_000 });

const outcome = (r: ProcessResult) => ({
  kind: r.kind,
  code: r.kind === "exited" ? r.code : undefined,
  output: r.stdout.text(),
});

/** The parent of the shell that ran a command: the helper, or this process for a direct start. */
async function parentOf(r: Promise<ProcessResult>): Promise<number> {
  return Number((await r).stdout.text().trim());
}
// ps pads a pid to five columns: the pipe takes the padding off (the shell's own pid read before it forks).
const PARENT = "me=$BASHPID; ps -o ppid= -p $me | tr -d ' '";

describe.runIf(linux)("the shell helper", () => {
  it("runs a command itself once it is ready (the command's shell is the helper's child)", async () => {
    expect(await parentOf(byHelper(PARENT))).toBe(helper.pid);
    expect(await parentOf(directly(PARENT))).toBe(process.pid);
  });

  it.each([
    ["output and the exit code", "echo out; echo more; exit 3"],
    ["the working folder", "pwd; echo $PWD"],
    ["the environment, whole", "env | sort"],
    ["what bash -c sets at its start", 'echo "$LINENO $BASH_SUBSHELL $SHLVL $0 $# $-"'],
    ["the command as bash -c holds it", 'printf "%s|" "$BASH_EXECUTION_STRING"'],
    ["line numbers of a command on three lines", "echo a; echo $LINENO\n(exit 2)\necho $LINENO $?"],
    ["bash's own messages", "return 3"],
    ["a builtin's error", "local x=1"],
    ["OLDPWD, PWD and SHLVL as variables", "declare -p OLDPWD PWD SHLVL"],
    ["cd in the command", "cd ..; pwd; echo $OLDPWD"],
    ["shell variables other than PIPESTATUS and BASHPID", "set | grep -Ev '^(BASHPID|PIPESTATUS|_)='"],
    ["shell options", "shopt; set -o"],
    ["an EXIT trap", 'trap "echo bye" EXIT; exit 4'],
    ["exec", "exec echo replaced"],
    ["standard input is empty", "cat; echo after"],
    ["umask and limits", "umask; ulimit -a"],
    ["text that is not ASCII", "echo 'café ☕ 日本'"],
    ["quotes and backslashes", `printf '%s\\n' "a'b" 'c"d' 'e\\\\f' $'tab\\there'`],
    ["no functions, no aliases", "declare -F; alias; echo end"],
    ["a subshell's own id", 'test "$BASHPID" -gt 0 && echo has-pid'],
  ])("gives what bash -c gives: %s", async (_name, command) => {
    expect(outcome(await byHelper(command))).toEqual(outcome(await directly(command)));
  });

  it("keeps stdout and stderr in the order they were written (one stream, as 2>&1)", async () => {
    // A direct start reads them from two pipes, in the order they arrive.
    const r = await byHelper("echo out; echo err >&2; echo more; no-such-command-here; echo $LINENO; exit 3");
    expect(outcome(r)).toEqual({
      kind: "exited",
      code: 3,
      output: "out\nerr\nmore\nbash: line 1: no-such-command-here: command not found\n1\n",
    });
  });

  it("carries any command text and folder name exactly (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 40 }).filter((s) => !s.includes("\0")),
        fc
          .string({ unit: "grapheme-composite", maxLength: 12 })
          .filter((s) => /^[^\0/]+$/.test(s) && s !== "." && s !== ".."),
        async (payload, folder) => {
          const where = path.join(dir, "f", folder);
          mkdirSync(where, { recursive: true });
          const quoted = `'${payload.replaceAll("'", `'\\''`)}'`;
          const r = await byHelper(`printf '%s' ${quoted}; printf '|%s' "$PWD"`, { cwd: where });
          expect(r.kind).toBe("exited");
          expect(r.stdout.text()).toBe(`${payload}|${where}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("ends the whole process group on a timeout, and what a command left running when it exits", async () => {
    const pidFile = path.join(dir, "left.pid");
    const timedOut = await byHelper(`sleep 30 & echo $! > ${pidFile}; wait`, { timeoutMs: 300 });
    expect(timedOut.kind).toBe("timed-out");
    const pid = Number(execFileSync("cat", [pidFile], { encoding: "utf8" }));
    await until(() => !alive(pid), { what: "the timed-out command's child to end", timeoutMs: 5000 });

    const left = await byHelper(`(sleep 30 & echo $! > ${pidFile}); echo done`);
    expect(outcome(left)).toEqual({ kind: "exited", code: 0, output: "done\n" });
    const leftPid = Number(execFileSync("cat", [pidFile], { encoding: "utf8" }));
    await until(() => !alive(leftPid), { what: "the command's leftover to end", timeoutMs: 5000 });
  });

  it("keeps waiting for a command that stops itself (SIGSTOP), as a direct start does, until its timeout", async () => {
    const command = "kill -STOP $BASHPID; echo continued";
    const stopped = await byHelper(command, { timeoutMs: 300 });
    expect(outcome(stopped)).toEqual({ kind: "timed-out", code: undefined, output: "" });
    const direct = await runShell(command, {
      cwd: dir,
      env,
      maxChars: 1000,
      signal: new AbortController().signal,
      timeoutMs: 300,
    });
    expect(outcome(direct)).toEqual(outcome(stopped));
    // The helper took the next command once the stopped one was ended.
    expect(await parentOf(byHelper(PARENT))).toBe(helper.pid);
  });

  it("stops a command whose stop came before the helper said it started", async () => {
    const stop = new AbortController();
    const r = byHelper("echo started-anyway; sleep 30", { signal: stop.signal });
    stop.abort();
    expect((await r).kind).toBe("aborted");
  });

  it("gives nothing of what a stranger sends to its port, and the command's output whole", async () => {
    const r = byHelper("sleep 0.3; echo the-real-output");
    const stranger = net.connect(helper.port, "127.0.0.1");
    // Its connection may be reset: a stranger's is closed once the command's own has connected.
    stranger.on("error", () => {});
    await new Promise((resolve) => stranger.once("connect", resolve));
    stranger.write("0123456789abcdef0123456789abcdef\nFORGED OUTPUT\n");
    const closed = new Promise((resolve) => stranger.once("close", resolve));
    expect(outcome(await r)).toEqual({ kind: "exited", code: 0, output: "the-real-output\n" });
    await closed;
  });

  it("starts a command directly when the folder is missing, as a direct start fails", async () => {
    const r = await byHelper("echo never", { cwd: path.join(dir, "no-such-folder") });
    expect(r.kind).toBe("not-started");
    expect(await parentOf(byHelper(PARENT))).toBe(helper.pid);
  });

  it("runs commands one at a time: a command while it is busy starts directly", async () => {
    const parents = await Promise.all([
      parentOf(byHelper(`sleep 0.2; ${PARENT}`)),
      parentOf(byHelper(PARENT)),
    ]);
    expect(parents).toEqual([helper.pid, process.pid]);
  });
});

describe.runIf(linux)("the Bash tool and the shell helper", () => {
  const bash = createBashTool();
  const inTool = (command: string) => run(bash, { command }, { ...toolContext(dir), env });

  it("starts directly what the helper would run otherwise: $$ and a line bash cannot parse", async () => {
    const shell = await loadShellParser();
    expect(helperCanRun("echo $$", shell)).toBe(false);
    expect(helperCanRun("echo ${$}", shell)).toBe(false);
    expect(helperCanRun("if then", shell)).toBe(false);
    expect(helperCanRun("echo ok; ls | wc -l", shell)).toBe(true);
    // $$ is the command's own shell, a child of this process.
    const own = text(await inTool("echo $$ $BASHPID"));
    const [dollar, bashpid] = own.split("\n")[0]?.split(" ") ?? [];
    expect(dollar).toBe(bashpid);
    // A syntax error reads as bash -c's own.
    expect(text(await inTool("if then"))).toBe(
      "bash: -c: line 1: syntax error near unexpected token `then'\nbash: -c: line 1: `if then'\n[exit code 2]",
    );
  });

  it("runs an ordinary command through the helper, with the tool's usual result", async () => {
    await readyShellHelper(env);
    expect(text(await inTool(PARENT))).toBe(`${helper.pid}\n[exit code 0]`);
    expect(await run(bash, { command: "echo nope; exit 3" }, { ...toolContext(dir), env })).toEqual({
      content: "nope\n[exit code 3]",
      isError: true,
    });
  });
});

describe.runIf(linux)("a helper that goes away", () => {
  it("reports its running command killed and is replaced for the next one", async () => {
    const own = { ...env, AGENTMD_TEST_MARK: "dies" };
    const first = await readyShellHelper(own);
    expect(first).toBeDefined();
    let said = "";
    const running = runShell("echo go; sleep 30", {
      cwd: dir,
      env: own,
      maxChars: 1000,
      signal: new AbortController().signal,
      timeoutMs: 20_000,
      spawn: shellSpawn,
      onOutput: (t) => {
        said += t;
      },
    });
    await until(() => said.includes("go"), { what: "the command to start", timeoutMs: 5000 });
    process.kill(first?.pid ?? -1, "SIGKILL");
    const r = await running;
    expect(r.kind).toBe("signalled");
    const second = await readyShellHelper(own);
    expect(second?.pid).not.toBe(first?.pid);
  });

  it("leaves no subshell behind when it is killed while idle (the one it forked ahead ends too)", async () => {
    const own = { ...env, AGENTMD_TEST_MARK: "dies-idle" };
    const ready = await readyShellHelper(own);
    expect(ready).toBeDefined();
    const children = () => readFileSync(`/proc/${ready?.pid}/task/${ready?.pid}/children`, "utf8").trim();
    await until(() => children() !== "", { what: "the helper to fork its next subshell", timeoutMs: 5000 });
    const ahead = Number(children());
    process.kill(ready?.pid ?? -1, "SIGKILL");
    await until(() => !alive(ahead), { what: "the subshell forked ahead to end", timeoutMs: 5000 });
    expect((await readyShellHelper(own))?.pid).not.toBe(ready?.pid);
  });

  it("makes room for a new environment by ending the least recently used idle helper", async () => {
    const started: { pid: number; port: number }[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const one = await readyShellHelper({ ...env, AGENTMD_TEST_MARK: `room-${n}` });
      expect(one).toBeDefined();
      if (one) started.push(one);
    }
    // At most four at once: the first made room for the fifth, and its process ends.
    await until(() => !alive(started[0]?.pid ?? -1), { what: "the oldest helper to end", timeoutMs: 5000 });
    expect(started.slice(1).every((h) => alive(h.pid))).toBe(true);
    // The helper this file began with is started again when its environment comes back.
    const again = await readyShellHelper(env);
    expect(again).toBeDefined();
    if (again) helper = again;
    expect(await parentOf(byHelper(PARENT))).toBe(helper.pid);
  });

  it("is not used with AGENTMD_SHELL_HELPER=off, nor where bash reads its start-up from the environment", async () => {
    expect(await readyShellHelper({ ...env, BASH_ENV: "/dev/null" })).toBeUndefined();
    expect(await readyShellHelper({ ...env, "BASH_FUNC_f%%": "() { :; }" })).toBeUndefined();
    const before = process.env.AGENTMD_SHELL_HELPER;
    process.env.AGENTMD_SHELL_HELPER = "off";
    try {
      expect(await readyShellHelper(env)).toBeUndefined();
      expect(await parentOf(byHelper(PARENT))).toBe(process.pid);
    } finally {
      if (before === undefined) delete process.env.AGENTMD_SHELL_HELPER;
      else process.env.AGENTMD_SHELL_HELPER = before;
    }
  });

  it("keeps TMOUT for the command, not in the helper's own environment (its wait for requests)", async () => {
    const own = { ...env, TMOUT: "1" };
    const ready = await readyShellHelper(own);
    const helperEnv = readFileSync(`/proc/${ready?.pid}/environ`, "utf8").split("\0");
    expect(helperEnv).toContain("AGENTMD_TEST_MARK=helper-test");
    expect(helperEnv.filter((v) => v.startsWith("TMOUT="))).toEqual([]);
    const r = await runShell(`${PARENT}; echo "$TMOUT"`, {
      cwd: dir,
      env: own,
      maxChars: 1000,
      signal: new AbortController().signal,
      timeoutMs: 10_000,
      spawn: shellSpawn,
    });
    expect(r.stdout.text()).toBe(`${ready?.pid}\n1\n`);
  });
});
