import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { type FakeAnthropic, type ScriptStep, startFakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/fixtures.js";
import { jsonLines } from "../support/runs.js";
import { call, toolsOf as offeredIn, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * End to end through the CLI's `main` (in this process; the built bin runs the same function, and
 * test/cli covers the bin itself) against the fake Anthropic server: every boundary computes
 * caller ∩ callee, and what the model is shown and told proves it.
 */
let dir: string;
let cleanup: () => void;
let fake: FakeAnthropic;

const PROJECT: Record<string, string> = {
  "agent.md":
    "---\nname: main\nallowed-tools: Read, Grep, Glob, Bash(git:*), Task, Skill\ndisallowed-tools: Bash(curl:*)\nmaxDepth: 2\n---\nYou are the main agent.\n",
  "agents/reviewer.md":
    "---\nname: reviewer\ndescription: Reviews read-only.\ntools: Read, Grep, Glob, Bash(git diff:*)\n---\nYou review.\n",
  "agents/wide.md":
    "---\nname: wide\ndescription: Asks for everything.\ntools: Read, Write, Bash, Task\n---\nYou do anything.\n",
  "agents/writer.md": "---\nname: writer\ndescription: Writes only.\ntools: Write, Edit\n---\nYou write.\n",
  "agents/gatekeeper.md":
    "---\nname: gatekeeper\ndescription: May only spawn the reviewer.\ntools: Read, Task(reviewer)\n---\nYou delegate.\n",
  "agents/shell.md":
    "---\nname: shell\ndescription: Has Bash and skills.\ntools: Bash, Skill, Read\n---\nYou run things.\n",
  "skills/writer-skill/SKILL.md":
    "---\nname: writer-skill\ndescription: Wants to write.\nallowed-tools: Read, Write\n---\nWrite things.\n",
  "skills/narrow/SKILL.md":
    "---\nname: narrow\ndescription: Narrows to reading.\nallowed-tools: Read\n---\nOnly read now. Topic: $ARGUMENTS\n",
  "skills/rm-skill/SKILL.md":
    "---\nname: rm-skill\ndescription: Wants rm.\nallowed-tools: Bash(rm:*)\n---\nRemove things.\n",
  "skills/forked/SKILL.md":
    "---\nname: forked\ndescription: Runs on its own.\ncontext: fork\nagent: reviewer\n---\nReview $1 in a fork.\n",
  "commands/status.md":
    "---\ndescription: Shows git status\nallowed-tools: Bash(git status:*), Read\n---\nStatus:\n!`git status --short`\nArgs: $ARGUMENTS\n",
  "commands/fetch.md": "---\ndescription: Fetches a URL\nallowed-tools: Bash\n---\nPage: !`curl -s $1`\n",
  "a.txt": "alpha\n",
};

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  writeFiles(dir, PROJECT);
  execFileSync("git", ["init", "-q"], { cwd: dir });
});
afterEach(async () => {
  await fake?.close();
  cleanup();
});

const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: dir });
/** The CLI in this process (the same `main` the bin runs): one fake server answers it. */
const cli = (args: string[]) => runCli(["run", "--output", "stream-json", ...args], { cwd: dir, env: env() });
const toolsOf = (i: number) => offeredIn(fake, i);
const lastResults = (i: number) => resultsSent(fake, i);

describe("subagents", () => {
  it("a read-only subagent is shown only its allowed tools and told 'not allowed' for rm -rf", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "review", prompt: "clean up and review", subagent_type: "reviewer" }, "t1"),
      call("Bash", { command: "rm -rf x" }, "c1"),
      text("cannot delete"),
      text("the reviewer could not delete"),
    ]);
    const r = await cli(["review please"]);
    expect(r.code).toBe(0);
    expect(toolsOf(0)).toEqual(["Bash", "Glob", "Grep", "Read", "Skill", "Task"]);
    expect(toolsOf(1)).toEqual(["Bash", "Glob", "Grep", "Read"]);
    expect(resultText(lastResults(2)[0])).toBe(
      "Bash(rm -rf x) is not allowed: this run allows Bash only for: git diff:*. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
    expect(resultText(lastResults(3)[0])).toBe("cannot delete");
    const events = jsonLines(r.stdout);
    expect(events.flatMap((e) => (e.type === "run_start" ? [[e.agent, e.depth]] : []))).toEqual([
      ["main", 0],
      ["reviewer", 1],
    ]);
  });

  it("refuses a child whose list shares nothing with the caller's, naming both sides", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "w", prompt: "write", subagent_type: "writer" }),
      text("ok"),
    ]);
    await cli(["go"]);
    const refused = lastResults(1)[0];
    expect(refused?.is_error).toBe(true);
    expect(resultText(refused)).toBe(
      "writer was not started: no tool survives the intersection of the allow-lists. The caller allows Bash(git:*), Read, Grep, Glob, Task, Skill; writer allows Write, Edit.",
    );
  });

  it("a subagent never widens: 'wide' asks for Write and all of Bash but gets Read and Bash(git:*)", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "w", prompt: "go", subagent_type: "wide" }),
      call("Write", { file_path: "x.txt", content: "x" }),
      text("done"),
      text("done"),
    ]);
    await cli(["go"]);
    expect(toolsOf(1)).toEqual(["Bash", "Read", "Task"]);
    expect(resultText(lastResults(2)[0])).toBe(
      "Write is not allowed in this run. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
  });

  it("a deny of Bash(curl:*) at main reaches a grandchild", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "w", prompt: "go", subagent_type: "wide" }),
      call("Task", { description: "r", prompt: "go", subagent_type: "reviewer" }),
      call("Bash", { command: "curl evil.example" }),
      text("no curl"),
      text("child done"),
      text("all done"),
    ]);
    const r = await cli(["go"]);
    expect(r.code).toBe(0);
    expect(resultText(lastResults(3)[0])).toBe(
      "Bash(curl evil.example) is denied by 'Bash(curl:*)' in agent.md:4. The tool was not executed.",
    );
  });

  it("Task(reviewer) stops a subagent from spawning any other", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "g", prompt: "go", subagent_type: "gatekeeper" }),
      call("Task", { description: "w", prompt: "go", subagent_type: "wide" }),
      text("could not"),
      text("done"),
    ]);
    await cli(["go"]);
    const schema = (fake.requests[1]?.body.tools ?? []).find(
      (t) => (t as { name: string }).name === "Task",
    ) as {
      input_schema: { properties: { subagent_type: { enum: string[] } } };
    };
    expect(schema.input_schema.properties.subagent_type.enum).toEqual(["reviewer"]);
    expect(resultText(lastResults(2)[0])).toBe(
      "Task(wide) is not allowed: this run allows Task only for: reviewer. The subagent 'gatekeeper' (agents/gatekeeper.md) narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
  });

  it("stops offering Task at the depth limit", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "w", prompt: "go", subagent_type: "wide" }),
      call("Task", { description: "w", prompt: "go", subagent_type: "wide" }),
      text("deepest"),
      text("middle"),
      text("top"),
    ]);
    await cli(["go"]);
    expect(toolsOf(1)).toContain("Task");
    expect(toolsOf(2)).not.toContain("Task");
  });

  it("runs several Task calls of one response in parallel under the global pool, without deadlock", async () => {
    const uses = Array.from({ length: 6 }, (_, i) => ({
      type: "tool_use" as const,
      id: `p${i}`,
      name: "Task",
      input: { description: `r${i}`, prompt: `read ${i}`, subagent_type: "reviewer" },
    }));
    const steps: ScriptStep[] = [{ kind: "message", content: uses }];
    for (let i = 0; i < 6; i++)
      steps.push((req) => {
        const content = (req.body.messages[0] as MessageParam).content;
        const prompt =
          typeof content === "string" ? content : content.map((b) => ("text" in b ? b.text : "")).join("");
        return {
          kind: "message",
          content: [{ type: "text", text: `answer to ${prompt}` }],
          chunkDelayMs: 20,
        };
      });
    steps.push(text("all reviewed"));
    fake = await startFakeAnthropic(steps);
    const r = await cli(["go"]);
    expect(r.code).toBe(0);
    expect(lastResults(7).map(resultText)).toEqual(
      Array.from({ length: 6 }, (_, i) => `answer to read ${i}`),
    );
  });
});

describe("skills", () => {
  it("a typed /skill args runs with main ∩ skill and its body rendered", async () => {
    fake = await startFakeAnthropic([text("read only now")]);
    const r = await cli(["/narrow the parser"]);
    expect(r.code).toBe(0);
    expect(toolsOf(0)).toEqual(["Read"]);
    expect(fake.requests[0]?.body.messages[0]?.content).toEqual([
      { type: "text", text: "Only read now. Topic: the parser", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("a model-invoked inline skill narrows the later calls of the turn", async () => {
    fake = await startFakeAnthropic([
      call("Skill", { skill: "narrow", args: "x" }),
      call("Bash", { command: "git status" }),
      text("done"),
    ]);
    await cli(["go"]);
    expect(
      String(fake.requests[0]?.body.system ? JSON.stringify(fake.requests[0]?.body.system) : ""),
    ).toContain("- narrow: Narrows to reading.");
    expect(resultText(lastResults(1)[0])).toContain("Only read now. Topic: x");
    expect(toolsOf(1)).toEqual(["Read"]);
    expect(resultText(lastResults(2)[0])).toBe(
      "Bash is not allowed in this run. The skill 'narrow' (skills/narrow/SKILL.md) narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
  });

  it("main Bash(git:*) → skill Bash(rm:*) is refused: the skill cannot widen its caller", async () => {
    fake = await startFakeAnthropic([call("Skill", { skill: "rm-skill" }), text("ok")]);
    await cli(["go"]);
    expect(resultText(lastResults(1)[0])).toBe(
      "the skill 'rm-skill' was not started: no tool survives the intersection of the allow-lists. The caller allows Bash(git:*), Read, Grep, Glob, Task, Skill; the skill 'rm-skill' allows Bash(rm:*).",
    );
  });

  it("main Bash(git:*) → subagent Bash → skill Bash(rm:*) is refused at the skill", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "s", prompt: "go", subagent_type: "shell" }),
      call("Skill", { skill: "rm-skill" }),
      text("refused"),
      text("done"),
    ]);
    await cli(["go"]);
    expect(toolsOf(1)).toEqual(["Bash", "Read", "Skill"]);
    expect(resultText(lastResults(2)[0])).toBe(
      "the skill 'rm-skill' was not started: no tool survives the intersection of the allow-lists. The caller allows Bash(git:*), Read, Skill; the skill 'rm-skill' allows Bash(rm:*).",
    );
  });

  it("a skill cannot widen the subagent that invoked it", async () => {
    fake = await startFakeAnthropic([
      call("Task", { description: "s", prompt: "go", subagent_type: "shell" }),
      call("Skill", { skill: "writer-skill" }),
      call("Write", { file_path: "x.txt", content: "x" }),
      text("could not write"),
      text("done"),
    ]);
    await cli(["go"]);
    expect(toolsOf(2)).toEqual(["Read"]);
    expect(resultText(lastResults(3)[0])).toBe(
      "Write is not allowed in this run. agent.md narrowed this run: its allowed-tools do not allow this call. The tool was not executed.",
    );
  });

  it("a fork skill runs as a child bounded by caller ∩ skill ∩ its agent", async () => {
    fake = await startFakeAnthropic([
      call("Skill", { skill: "forked", args: "src/a.ts" }),
      text("forked review done"),
      text("ok"),
    ]);
    await cli(["go"]);
    expect(fake.requests[1]?.body.messages[0]?.content).toEqual([
      { type: "text", text: "Review src/a.ts in a fork.", cache_control: { type: "ephemeral" } },
    ]);
    expect(toolsOf(1)).toEqual(["Bash", "Glob", "Grep", "Read"]);
    expect(resultText(lastResults(2)[0])).toBe("forked review done");
  });
});

describe("commands", () => {
  it("runs !`git status` when the command's list allows it, with its output in the prompt", async () => {
    writeFiles(dir, { "new.txt": "x" });
    fake = await startFakeAnthropic([text("status seen")]);
    const r = await cli(["/status one two"]);
    expect(r.code).toBe(0);
    const sent = fake.requests[0]?.body.messages[0]?.content as { text: string }[];
    expect(sent[0]?.text).toContain("?? new.txt");
    expect(sent[0]?.text).toContain("Args: one two");
    expect(toolsOf(0)).toEqual(["Bash", "Read"]);
  });

  it("refuses !`curl …` (main's deny list) before anything runs, naming the command", async () => {
    fake = await startFakeAnthropic([text("never asked")]);
    const r = await cli(["/fetch http://example.com"]);
    expect(r.code).toBe(1);
    expect(fake.requests).toHaveLength(0);
    const err = jsonLines(r.stdout).find((e) => e.type === "error") as { message: string };
    expect(err.message).toBe(
      "/fetch: the command !`curl -s http://example.com` was not run: Bash(curl -s http://example.com) is denied by 'Bash(curl:*)' in agent.md:4. The tool was not executed.",
    );
  });

  it('shell-quotes arguments inside !`…`, also inside "$( … )": an argument never becomes shell syntax', async () => {
    writeFiles(dir, {
      "commands/echo.md":
        '---\nallowed-tools: Bash(git:*), Bash(echo:*)\n---\n!`echo "$(git log -1 --format=%s -- $1)"`\n',
    });
    fake = await startFakeAnthropic([text("ok")]);
    await cli(["/echo '; touch pwned'"]);
    const start = jsonLines((await cli(["/echo 'x; touch pwned'"])).stdout).find(
      (e) => e.type === "tool_start",
    ) as {
      input: { command: string };
    };
    expect(start.input.command).toBe(`echo "$(git log -1 --format=%s -- 'x; touch pwned')"`);
    expect(existsSync(path.join(dir, "pwned"))).toBe(false);
  });

  it("answers an unknown /name with the closest names", async () => {
    fake = await startFakeAnthropic([]);
    const r = await runCli(["run", "/stauts"], { cwd: dir, env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command or skill /stauts; did you mean /status?");
  });
});
