import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { RecordedRequest, Scripted } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { jsonLines } from "../support/runs.js";
import { call, resultsSent, resultText, text } from "../support/script.js";

/**
 * `background: true`: the Task call returns at once with a task id, the caller goes on, and the
 * subagent's answer comes as a task notification before the caller's next request; the caller
 * waits for it before it ends, or stops it with a warning when it ends otherwise. The fake server
 * answers the caller and the subagent from two scripts, by whose request it is.
 */
const FILES = {
  "agent.md": "---\ntools: Read, Task\n---\nMain.\n",
  "agents/bg.md":
    "---\nname: bg\ndescription: In the background.\ntools: Read\nbackground: true\n---\nBackground worker.\n",
};
const isChild = (req: RecordedRequest) =>
  JSON.stringify(req.body.system ?? "").includes("Background worker.");
/** Steps that answer each request from the caller's or the subagent's script. */
const routed = (main: Scripted[], child: Scripted[]) =>
  Array.from({ length: main.length + child.length }, () => (req: RecordedRequest) => {
    const next = (isChild(req) ? child : main).shift();
    if (!next) throw new Error("no step left for this request");
    return next;
  });
const lastUserText = (req: RecordedRequest | undefined) => JSON.stringify(req?.body.messages.at(-1) ?? "");

describe("background: true", () => {
  test("the Task call returns at once; the answer comes in a notification; the caller waits for it", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project(FILES);
    fake.push(
      ...routed(
        [
          call("Task", { subagent_type: "bg", description: "d", prompt: "work" }, "toolu_t"),
          text("I will wait for it."),
          text("The worker said: forty-two."),
        ],
        [{ ...text("forty-two"), delayMs: 300 }],
      ),
    );
    const r = await runCli(["-p", "go"], { cwd: dir, env: { ...env } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The worker said: forty-two.\n");
    const mains = fake.requests.filter((q) => !isChild(q));
    expect(mains).toHaveLength(3);
    const started = resultsSent({ requests: mains } as never, 1)[0];
    expect(started?.is_error).toBeFalsy();
    expect(resultText(started)).toContain("running in the background as task-1");
    expect(resultText(started)).not.toContain("forty-two");
    const notified = lastUserText(mains[2]);
    expect(notified).toContain("<task-notification>");
    expect(notified).toContain("task-1 (bg) ended");
    expect(notified).toContain("forty-two");
  });

  test("a caller that ends another way stops the subagent, says so, and leaves nothing running", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project(FILES);
    fake.push(
      ...routed(
        [call("Task", { subagent_type: "bg", description: "d", prompt: "work" }, "toolu_t")],
        [{ kind: "hang", before: [{ type: "text", text: "thinking" }] }],
      ),
    );
    const r = await runCli(["run", "--output", "stream-json", "--max-turns", "1", "go"], {
      cwd: dir,
      env: { ...env },
    });
    const events = jsonLines(r.stdout);
    const warned = events.filter((e) => e.type === "warning").map((e) => (e as { message: string }).message);
    expect(warned.some((m) => m.includes("the background task bg (task-1) was stopped"))).toBe(true);
    const ends = events.filter((e) => e.type === "run_end");
    // The subagent's run ended (aborted) before its caller's did.
    expect(ends).toHaveLength(2);
    expect((ends[0] as { outcome: string }).outcome).toBe("aborted");
    expect((ends[1] as { depth: number }).depth).toBe(0);
  });
});
