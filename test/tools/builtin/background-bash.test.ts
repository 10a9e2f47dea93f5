import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectOutput } from "../../../src/tools/builtin/shell-process.js";
import {
  type BackgroundShells,
  createBackgroundShells,
  createBashOutputTool,
  createBashTool,
  createKillShellTool,
} from "../../../src/tools/index.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { tempDir } from "../../support/fixtures.js";
import { alive } from "../../support/processes.js";
import { run, text, toolContext } from "../../support/tools.js";
import { until } from "../../support/until.js";

let dir: string;
let cleanup: () => void;
let shells: BackgroundShells;
let ctx: ToolContext;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  shells = createBackgroundShells();
  ctx = { ...toolContext(dir), shells };
});
afterEach(() => {
  shells.close();
  cleanup();
});

const bash = createBashTool();
const output = createBashOutputTool();
const kill = createKillShellTool();

/** Polls a condition about another process, which nothing here can await; bounded. */
async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  await until(check, { what: "the other process's state", timeoutMs: ms, everyMs: 25 });
  return true;
}

const pidIn = (file: string) => Number(readFileSync(file, "utf8"));
const written = (file: string) => existsSync(file) && readFileSync(file, "utf8").trim() !== "";

/** BashOutput's answers, polled (bounded) until one says the command is no longer running. */
async function readUntilEnded(id: string, filter?: string, c: ToolContext = ctx): Promise<string> {
  let seen = "";
  for (const end = Date.now() + 5000; Date.now() < end; ) {
    const t = text(await run(output, { bash_id: id, ...(filter && { filter }) }, c));
    seen += `${t}\n`;
    if (!t.startsWith(`[${id}: running]`)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return seen;
}

describe("Bash run_in_background, BashOutput and KillShell", () => {
  it("answers at once with an id; BashOutput gives what came since the last read, then how it ended", async () => {
    const started = await run(
      bash,
      {
        command: "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two; exit 3",
        run_in_background: true,
      },
      ctx,
    );
    expect(started.isError).toBe(false);
    expect(text(started)).toMatch(/^Started in the background as bash_1\./);
    let first = "";
    expect(
      await waitFor(() => {
        first += shells.read("bash_1")?.output ?? "";
        return first.includes("one");
      }),
    ).toBe(true);
    expect(first).toBe("one\n");
    writeFileSync(path.join(dir, "go"), "");
    const rest = await readUntilEnded("bash_1");
    expect(rest).toContain("two");
    expect(rest).not.toContain("one");
    expect(rest).toContain("[bash_1: exited with code 3]");
    expect(text(await run(output, { bash_id: "bash_1" }, ctx))).toBe(
      "[bash_1: exited with code 3]\n(no new output)",
    );
  });

  it("filters the new lines by a regular expression, dropping the others", async () => {
    await run(bash, { command: "printf 'ok 1\\nerr 2\\nok 3\\n'", run_in_background: true }, ctx);
    expect(await shells.ended("bash_1")).toBe("exited with code 0");
    const filtered = text(await run(output, { bash_id: "bash_1", filter: "^ok" }, ctx));
    expect(filtered).toBe("[bash_1: exited with code 0]\nok 1\nok 3");
    expect(filtered).not.toContain("err 2");
    expect(text(await run(output, { bash_id: "bash_1" }, ctx))).toBe(
      "[bash_1: exited with code 0]\n(no new output)",
    );
    expect((await run(output, { bash_id: "bash_1", filter: "(" }, ctx)).isError).toBe(true);
  });

  it("KillShell ends the whole process group; a second kill says it is not running", async () => {
    const pidFile = path.join(dir, "pid");
    await run(bash, { command: `sleep 30 & echo $! > ${pidFile}; wait`, run_in_background: true }, ctx);
    expect(await waitFor(() => written(pidFile))).toBe(true);
    const pid = pidIn(pidFile);
    expect(await run(kill, { shell_id: "bash_1" }, ctx)).toEqual({
      content: "Ended bash_1.",
      isError: false,
    });
    expect(await waitFor(() => !alive(pid))).toBe(true);
    expect(text(await run(output, { bash_id: "bash_1" }, ctx))).toMatch(/^\[bash_1: killed\]/);
    expect(await run(kill, { shell_id: "bash_1" }, ctx)).toEqual({
      content: "bash_1 is not running (killed); nothing to end.",
      isError: true,
    });
  });

  it("closing the registry (the run's end) ends every command, and no new one starts", async () => {
    const pidFile = path.join(dir, "pid");
    await run(bash, { command: `sleep 30 & echo $! > ${pidFile}; wait`, run_in_background: true }, ctx);
    expect(await waitFor(() => written(pidFile))).toBe(true);
    shells.close();
    expect(await waitFor(() => !alive(pidIn(pidFile)))).toBe(true);
    const late = await run(bash, { command: "true", run_in_background: true }, ctx);
    expect(late).toEqual({
      content: "Cannot run bash: the run is ending; no command can start in it now.",
      isError: true,
    });
  });

  it("knows only its own run's ids, hides the API key, and needs a run to belong to", async () => {
    expect(await run(output, { bash_id: "bash_9" }, ctx)).toEqual({
      content: "No background command 'bash_9' in this run.",
      isError: true,
    });
    const other = { ...ctx, shells: createBackgroundShells() };
    await run(bash, { command: "true", run_in_background: true }, ctx);
    expect((await run(output, { bash_id: "bash_1" }, other)).isError).toBe(true);
    expect((await run(kill, { shell_id: "bash_1" }, other)).isError).toBe(true);
    const secret = { ...ctx, env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-secret" } };
    await run(bash, { command: 'echo "[$ANTHROPIC_API_KEY]"', run_in_background: true }, secret);
    expect(await readUntilEnded("bash_2")).toContain("[]");
    expect(await run(bash, { command: "true", run_in_background: true }, toolContext(dir))).toEqual({
      content: "This run cannot keep commands in the background; run it without run_in_background.",
      isError: true,
    });
  });

  it("cuts what piles up between reads, as Bash cuts, and says so", async () => {
    await run(bash, { command: "head -c 40000 /dev/zero | tr '\\0' a", run_in_background: true }, ctx);
    expect(await shells.ended("bash_1")).toBe("exited with code 0");
    const seen = text(await run(output, { bash_id: "bash_1" }, ctx));
    expect(seen).toMatch(/^\[bash_1: exited with code 0\]\n/);
    expect(seen).toContain("a".repeat(30_000));
    expect(seen).toContain("[output cut at 30000 characters; 10000 more bytes not shown]");
  });
});

describe("collectOutput.take", () => {
  it("starts afresh after each take and keeps a character split across the boundary whole", () => {
    const out = collectOutput(100);
    const euro = Buffer.from("€", "utf8");
    out.add(Buffer.concat([Buffer.from("a"), euro.subarray(0, 1)]));
    expect(out.take()).toBe("a");
    out.add(Buffer.concat([euro.subarray(1), Buffer.from("b")]));
    expect(out.take()).toBe("€b");
    expect(out.take()).toBe("");
    out.add(Buffer.from("x".repeat(150)));
    expect(out.take()).toBe(`${"x".repeat(100)}\n[output cut at 100 characters; 50 more bytes not shown]`);
    out.add(Buffer.from([0, 1, 2]));
    expect(out.take()).toBe("[binary output, 3 bytes]");
  });
});
