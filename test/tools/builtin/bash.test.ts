import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BASH_MAX_TIMEOUT, effectiveTimeout } from "../../../src/tools/builtin/bash.js";
import { createBashTool } from "../../../src/tools/index.js";
import { tempDir } from "../../support/fixtures.js";
import { alive } from "../../support/processes.js";
import { run, text, toolContext } from "../../support/tools.js";
import { until } from "../../support/until.js";

let dir: string;
let cleanup: () => void;
const bash = createBashTool();
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  await until(check, { what: "the other process's state", timeoutMs: ms, everyMs: 25 });
  return true;
}

describe("Bash", () => {
  it("runs in the working folder and returns stdout and stderr with the exit code", async () => {
    const r = await run(bash, { command: "pwd; echo out; echo err 1>&2" }, toolContext(dir));
    expect(r).toEqual({ content: `${dir}\nout\nerr\n[exit code 0]`, isError: false });
  });

  it("marks a non-zero exit as an error", async () => {
    expect(await run(bash, { command: "echo nope; exit 3" }, toolContext(dir))).toEqual({
      content: "nope\n[exit code 3]",
      isError: true,
    });
  });

  it("cuts output at 30,000 characters with a note", async () => {
    const t = text(await run(bash, { command: "head -c 40000 /dev/zero | tr '\\0' a" }, toolContext(dir)));
    expect(t.startsWith("a".repeat(30_000))).toBe(true);
    expect(t).toContain("[output cut at 30000 characters; 10000 more bytes not shown]");
  });

  it("kills the whole process group on timeout", async () => {
    const pidFile = path.join(dir, "pid");
    const r = await run(
      bash,
      { command: `sleep 30 & echo $! > ${pidFile}; wait`, timeout: 300 },
      toolContext(dir),
    );
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("[killed after 300 ms: timed out]");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it("kills the whole process group when the run is aborted", async () => {
    const pidFile = path.join(dir, "pid");
    const ac = new AbortController();
    const pending = run(
      bash,
      { command: `sleep 30 & echo $! > ${pidFile}; wait` },
      toolContext(dir, ac.signal),
    );
    expect(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "")).toBe(
      true,
    );
    ac.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("[interrupted: the run was aborted]");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it("returns when the shell exits even if a background child keeps its output open", async () => {
    const r = await run(bash, { command: "(sleep 5 &) ; echo done" }, toolContext(dir));
    expect(text(r)).toBe("done\n[exit code 0]");
  });

  it("clamps the timeout, refuses a non-positive one, and hides the API key", async () => {
    expect(effectiveTimeout(undefined)).toBe(120_000);
    expect(effectiveTimeout(10 ** 9)).toBe(BASH_MAX_TIMEOUT);
    expect((await run(bash, { command: "true", timeout: 0 }, toolContext(dir))).isError).toBe(true);
    const ctx = {
      ...toolContext(dir),
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-test-secret", OTHER: "seen" },
    };
    expect(text(await run(bash, { command: 'echo "[$ANTHROPIC_API_KEY][$OTHER]"' }, ctx))).toBe(
      "[][seen]\n[exit code 0]",
    );
  });

  it("does not interpret shell metacharacters itself: the command line is bash's", async () => {
    expect(text(await run(bash, { command: "echo 'a;b' | tr ';' '-'" }, toolContext(dir)))).toBe(
      "a-b\n[exit code 0]",
    );
  });
});
