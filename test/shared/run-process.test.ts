import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectOutput } from "../../src/shared/collect-output.js";
import { type ProcessOptions, runProcess } from "../../src/shared/run-process.js";

/** The shell the runner starts in these tests: a command line, its output collected. */
const sh = (command: string, o: Partial<ProcessOptions> = {}) =>
  runProcess("bash", ["-c", command], { maxChars: 10_000, env: { PATH: process.env.PATH ?? "" }, ...o });

/** Whether a process has ended: gone, or a zombie no one has reaped yet (it runs nothing). */
function ended(pid: number): boolean {
  try {
    return /\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** Aborts `ac` once the process has printed `marker` (it is then surely running). */
const abortOn = (ac: AbortController, marker: string) => {
  let seen = "";
  return (text: string) => {
    seen += text;
    if (seen.includes(marker)) ac.abort();
  };
};

describe("runProcess: a stop reaches the whole group", () => {
  it("an abort ends the grandchildren the command started, not only the command", async () => {
    const ac = new AbortController();
    const r = await sh("sleep 30 & echo child=$!; wait", { signal: ac.signal, onOutput: abortOn(ac, "\n") });
    expect(r.kind).toBe("aborted");
    const pid = Number(/child=(\d+)/.exec(r.stdout.text())?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(ended(pid)).toBe(true);
  });

  it("a command that ignores SIGTERM is ended with SIGKILL after the grace", async () => {
    const ac = new AbortController();
    const r = await sh("trap 'echo TERM survived' TERM; echo pid=$$; while :; do sleep 1; done", {
      signal: ac.signal,
      onOutput: abortOn(ac, "pid="),
    });
    expect(r.kind).toBe("aborted");
    expect(r.stdout.text()).toContain("TERM survived");
    expect(ended(Number(/pid=(\d+)/.exec(r.stdout.text())?.[1]))).toBe(true);
  });

  it("a timeout stops it the same way and says so", async () => {
    const r = await sh("echo pid=$$; sleep 30", { timeoutMs: 200 });
    expect(r.kind).toBe("timed-out");
    expect(ended(Number(/pid=(\d+)/.exec(r.stdout.text())?.[1]))).toBe(true);
  });
});

describe("runProcess: the result is a value", () => {
  it("keeps the output within the cap and says it cut", async () => {
    const r = await sh("head -c 100000 /dev/zero | tr '\\0' a", { maxChars: 1000 });
    expect(r).toMatchObject({ kind: "exited", code: 0, truncated: true });
    expect(r.stdout.text()).toMatch(
      /^a{1000}\n\[output cut at 1000 characters; 99000 more bytes not shown\]$/,
    );
    const small = await sh("echo hi", { maxChars: 1000 });
    expect([small.truncated, small.stdout.text()]).toEqual([false, "hi\n"]);
  });

  it.each([
    ["exit 3", { kind: "exited", code: 3 }],
    ["kill -USR1 $$", { kind: "signalled", signal: "SIGUSR1" }],
    ["echo out; echo err >&2", { kind: "exited", code: 0 }],
  ])("%s → %o", async (command, end) => {
    expect(await sh(command)).toMatchObject(end);
  });

  it("keeps stdout and stderr apart, or in one collector when they share it", async () => {
    const apart = await sh("echo out; echo err >&2");
    expect([apart.stdout.text(), apart.stderr.text()]).toEqual(["out\n", "err\n"]);
    const both = collectOutput(100);
    const together = await sh("echo out; echo err >&2", { stdout: both, stderr: both });
    expect(together.stdout.text().split("\n").sort()).toEqual(["", "err", "out"]);
  });

  it("never starts a process that cannot run, and never rejects", async () => {
    const missing = await runProcess("no-such-program-here", [], { maxChars: 100 });
    expect(missing).toMatchObject({ kind: "not-started", message: expect.stringContaining("ENOENT") });
    const refused = await runProcess("bash", [], {
      maxChars: 100,
      spawn: () => {
        throw new Error("the sandbox cannot be set up");
      },
    });
    expect(refused).toMatchObject({ kind: "not-started", message: "the sandbox cannot be set up" });
    let started = 0;
    const ac = new AbortController();
    ac.abort();
    const late = await runProcess("bash", [], {
      maxChars: 100,
      signal: ac.signal,
      spawn: () => {
        started++;
        throw new Error("never");
      },
    });
    expect([late.kind, started]).toEqual(["aborted", 0]);
  });

  it("hands the input on stdin, and never the model's credentials in the environment", async () => {
    const r = await sh(
      'cat; echo "key=${ANTHROPIC_API_KEY-unset} token=${ANTHROPIC_AUTH_TOKEN-unset} x=$X"',
      {
        input: "from stdin\n",
        env: { PATH: process.env.PATH ?? "", ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: "t", X: "seen" },
      },
    );
    expect(r.stdout.text()).toBe("from stdin\nkey=unset token=unset x=seen\n");
  });
});
