import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { it } from "../../support/fixture.js";
import { call, resultsSent, resultText, text } from "../../support/script.js";
import { until } from "../../support/until.js";

/**
 * The shell helper as a user's run meets it, through the built CLI: its commands go through the
 * helper, and however agentmd ends (its run done, SIGTERM, SIGKILL), no helper is left behind, and
 * a run never ends with the guard's "internal error" because the helper's handles are unref'd.
 */
const linux = process.platform === "linux";
const AGENT = "---\nallowed-tools: Bash\n---\nMain.\n";
const PARENT = "me=$BASHPID; ps -o ppid= -p $me | tr -d ' '";

/** The shell helpers (a bash whose script connects to a loopback port) started with this mark. */
function helpersMarked(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (cmdline.includes("/dev/tcp/127.0.0.1/") && environ.includes(`AGENTMD_TEST_MARK=${mark}`))
        found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describe.runIf(linux)("the shell helper and agentmd's end", () => {
  it("runs the run's later commands, and is gone when the run ends (no internal error)", async ({
    fake,
    project,
    cli,
  }) => {
    project({ "agent.md": AGENT });
    fake.push(call("Bash", { command: "echo one" }), call("Bash", { command: PARENT }), text("done"));
    let agentmd: ChildProcess | undefined;
    const mark = `cli-${process.pid}-done`;
    const r = await cli(["run", "go"], { env: { AGENTMD_TEST_MARK: mark }, onStart: (c) => (agentmd = c) });
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
    const parent = resultText(resultsSent(fake, 2)[0]).split("\n")[0];
    expect(Number(parent)).not.toBe(agentmd?.pid);
    await until(() => helpersMarked(mark).length === 0, { what: "no helper left", timeoutMs: 5000 });
  });

  it.for([
    ["SIGTERM", 143],
    ["SIGKILL", 128],
  ] as const)(
    "is gone when agentmd ends by %s while the model answers",
    async ([signal, code], { fake, project, cli }) => {
      project({ "agent.md": AGENT });
      fake.push(call("Bash", { command: "echo one" }), call("Bash", { command: PARENT }), {
        kind: "silence",
      });
      const mark = `cli-${process.pid}-${signal}`;
      const r = await cli(["run", "go"], {
        env: { AGENTMD_TEST_MARK: mark },
        onStart: (child) =>
          void until(() => fake.requests.length >= 3 && helpersMarked(mark).length > 0, {
            what: "the helper to have run a command and the model to be asked again",
            timeoutMs: 10_000,
          }).then(() => child.kill(signal)),
      });
      expect(r.code).toBe(code);
      await until(() => helpersMarked(mark).length === 0, { what: "no helper left", timeoutMs: 5000 });
    },
  );
});
