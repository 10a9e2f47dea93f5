import { existsSync, readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { runCli } from "../support/cli.js";
import type { FakeAnthropic } from "../support/fake-anthropic.js";
import { test } from "../support/fixture.js";
import { call, promptOf, resultsSent, resultText, text } from "../support/script.js";

/**
 * Claude Code's subagent keys, acted on through `agentmd -p` against the fake server:
 * `permissionMode` only narrows, `skills:` are preloaded (or refuse the run), `initialPrompt` comes
 * first. (background and isolation: subagent-background.test.ts, subagent-worktree.test.ts.)
 */
const task = (agent: string, id = "toolu_task") =>
  call("Task", { subagent_type: agent, description: "d", prompt: "do the task" }, id);
const write = (file: string, id = "toolu_w") => call("Write", { file_path: file, content: "new\n" }, id);
const systemOf = (fake: FakeAnthropic, i: number) => JSON.stringify(fake.requests[i]?.body.system ?? "");

const run = (dir: string, env: Record<string, string>, args: string[]) =>
  runCli(["-p", ...args], { cwd: dir, env: { ...env } });

describe("permissionMode: the narrower of the subagent's and its caller's", () => {
  const agents = {
    "agents/planner.md":
      "---\nname: planner\ndescription: Plans.\ntools: Read, Write\npermissionMode: plan\n---\nPlan.\n",
    "agents/bold.md":
      "---\nname: bold\ndescription: Bold.\ntools: Read, Write\npermissionMode: bypassPermissions\n---\nGo.\n",
    "agents/plain.md": "---\nname: plain\ndescription: Plain.\ntools: Read, Write\n---\nGo.\n",
  };

  test("a plan subagent under a bypassPermissions caller cannot write", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    // A file not there yet: the read-before-edit rule has nothing to say, only the mode does.
    project({ ...agents });
    fake.push(task("planner"), write("a.txt"), text("planned"), text("done"));
    const r = await run(dir, env, ["--permission-mode", "bypassPermissions", "go"]);
    expect(r.code).toBe(0);
    const [w] = resultsSent(fake, 2);
    expect(w?.is_error).toBe(true);
    expect(resultText(w)).toContain("not run in plan mode");
    expect(existsSync(`${dir}/a.txt`)).toBe(false);
  });

  test("a bypassPermissions subagent under a default caller stays default: its write needs approval", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ ...agents });
    fake.push(task("bold"), write("a.txt"), text("tried"), text("done"));
    const r = await run(dir, env, ["go"]);
    expect(r.code).toBe(0);
    const [w] = resultsSent(fake, 2);
    expect(w?.is_error).toBe(true);
    expect(resultText(w)).toContain("needs approval");
  });

  test("without its own mode a subagent runs in its caller's (acceptEdits writes)", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ ...agents, "a.txt": "old\n" });
    fake.push(task("plain"), write("b.txt"), text("wrote"), text("done"));
    const r = await run(dir, env, ["--permission-mode", "acceptEdits", "go"]);
    expect(r.code).toBe(0);
    expect(resultsSent(fake, 2)[0]?.is_error).toBeFalsy();
    expect(readFileSync(`${dir}/b.txt`, "utf8")).toBe("new\n");
  });

  test("an unknown mode is an error in check, naming the modes", async ({ dir, project }) => {
    project({ "agents/x.md": "---\nname: x\ndescription: X.\npermissionMode: yolo\n---\nX.\n" });
    const r = await runCli(["check", "."], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/permissionMode/);
    expect(r.stdout).toMatch(/bypassPermissions/);
  });
});

describe("skills: preloaded into the subagent's context", () => {
  const files = {
    "agent.md": "---\ntools: Read, Task, Skill\n---\nMain.\n",
    "skills/style/SKILL.md": "---\nname: style\ndescription: House style.\n---\nAlways answer in haiku.\n",
    "skills/private/SKILL.md":
      "---\nname: private\ndescription: Users only.\ndisable-model-invocation: true\n---\nSecret steps.\n",
  };

  test("its body is in the subagent's system prompt from the first request", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      ...files,
      "agents/poet.md":
        "---\nname: poet\ndescription: Poet.\ntools: Read, Skill\nskills: [style]\n---\nYou write.\n",
    });
    fake.push(task("poet"), text("five seven five"), text("done"));
    const r = await run(dir, env, ["go"]);
    expect(r.code).toBe(0);
    expect(systemOf(fake, 1)).toContain("Always answer in haiku.");
    expect(systemOf(fake, 0)).not.toContain("Always answer in haiku.");
  });

  test("a skill its list does not allow refuses the run (never a silent skip), and check says so", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      ...files,
      "agents/poet.md":
        "---\nname: poet\ndescription: Poet.\ntools: Read\nskills: [style]\n---\nYou write.\n",
    });
    fake.push(task("poet"), text("done"));
    const r = await run(dir, env, ["go"]);
    expect(r.code).toBe(0);
    expect(fake.requests).toHaveLength(2);
    const [t] = resultsSent(fake, 1);
    expect(t?.is_error).toBe(true);
    expect(resultText(t)).toContain("preloads the skill 'style', which it may not invoke");
    const c = await runCli(["check", "."], { cwd: dir });
    expect(c.code).toBe(1);
    expect(c.stdout).toContain("skill-not-preloadable");
  });

  test("an unknown skill is an error with did-you-mean; a user-only skill cannot be preloaded", async ({
    dir,
    project,
  }) => {
    project({
      ...files,
      "agents/a.md": "---\nname: a\ndescription: A.\ntools: Skill\nskills: styel\n---\nA.\n",
      "agents/b.md": "---\nname: b\ndescription: B.\ntools: Skill\nskills: [private]\n---\nB.\n",
    });
    const r = await runCli(["check", "."], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("did you mean 'style'?");
    expect(r.stdout).toContain("only a user may invoke");
  });
});

describe("initialPrompt", () => {
  test("a subagent's comes before the task it is given, in the same turn", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      "agents/r.md":
        "---\nname: r\ndescription: R.\ntools: Read\ninitialPrompt: Read the README first.\n---\nR.\n",
    });
    fake.push(task("r"), text("ok"), text("done"));
    expect((await run(dir, env, ["go"])).code).toBe(0);
    expect(promptOf(fake, 1)).toBe("Read the README first.\n\ndo the task");
  });

  test("--agent NAME: its initialPrompt comes before the prompt", async ({ dir, env, fake, project }) => {
    project({
      "agents/r.md": "---\nname: r\ndescription: R.\ntools: Read\ninitialPrompt: Start here.\n---\nR.\n",
    });
    fake.push(text("ok"));
    expect((await run(dir, env, ["--agent", "r", "the prompt"])).code).toBe(0);
    expect(promptOf(fake, 0)).toBe("Start here.\n\nthe prompt");
  });

  test("agent.md's: before a new session's first prompt, not a resumed one's", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({ "agent.md": "---\ntools: Read\ninitialPrompt: Say hello.\n---\nMain.\n" });
    fake.push(text("hello"), text("again"));
    const first = await run(dir, env, ["--output-format", "json", "first"]);
    expect(promptOf(fake, 0)).toBe("Say hello.\n\nfirst");
    const id = JSON.parse(first.stdout).session_id as string;
    expect((await run(dir, env, ["--resume", id, "second"])).code).toBe(0);
    const messages = fake.requests[1]?.body.messages ?? [];
    expect(JSON.stringify(messages.at(-1))).not.toContain("Say hello.");
  });
});

describe("initialPrompt in chat", () => {
  test("a new chat submits agent.md's initialPrompt as its first turn", async ({ cli, fake, project }) => {
    project({ "agent.md": "---\ntools: Read\ninitialPrompt: Say hello.\n---\nMain.\n" });
    fake.push(text("hello there"), text("fine"));
    const r = await cli(["chat"], { input: "how are you\n" });
    expect(r.code).toBe(0);
    expect(promptOf(fake, 0)).toBe("Say hello.");
    expect(r.stdout).toContain("hello there");
    expect(JSON.stringify(fake.requests[1]?.body.messages.at(-1))).toContain("how are you");
  });
});

describe("through agentmd batch", () => {
  test("an item run as a subagent gets its initialPrompt and its mode", async ({
    dir,
    env,
    fake,
    project,
  }) => {
    project({
      "agents/p.md":
        "---\nname: p\ndescription: P.\ntools: Read, Write\npermissionMode: plan\ninitialPrompt: Plan only.\n---\nP.\n",
      "runs.jsonl": '{"id": "r0", "agent": "p", "prompt": "the item"}\n',
    });
    fake.push(write("b.txt"), text("planned"));
    const r = await runCli(["batch", "runs.jsonl"], { cwd: dir, env: { ...env } });
    expect(r.code).toBe(0);
    expect(promptOf(fake, 0)).toBe("Plan only.\n\nthe item");
    expect(resultText(resultsSent(fake, 1)[0])).toContain("not run in plan mode");
  });
});

describe("foreign keys", () => {
  test("none of the subagent keys agentmd acts on is reported as ignored", async ({ dir, project }) => {
    project({
      "skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\nS.\n",
      "agents/k.md":
        "---\nname: k\ndescription: K.\npermissionMode: plan\nskills: [s]\ninitialPrompt: Go.\nbackground: true\n---\nK.\n",
    });
    const r = await runCli(["check", ".", "--json"], { cwd: dir });
    const ignored = (JSON.parse(r.stdout).diagnostics as { code: string; message: string }[]).filter(
      (d) => d.code === "foreign-key",
    );
    expect(ignored).toEqual([]);
  });
});
