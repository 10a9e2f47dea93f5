import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { call, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";

/**
 * `agentmd` where a script called `claude`: -p and the flags Claude Code spells, its exit codes and
 * its `--output-format` message shapes, through the CLI against the fake API.
 */
const it = test.extend<{ claude: (args: string[], env?: Record<string, string>) => Promise<CliRun> }>({
  claude: async ({ dir, env }, use) => {
    await use((args, extra = {}) => runCli(args, { cwd: dir, env: { ...env, ...extra } }));
  },
});

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    "agent.md": "---\nallowed-tools: Read, Task, Bash(git:*)\n---\nBe brief.\n",
    "agents/reader.md": "---\nname: reader\ndescription: Reads files.\ntools: Read\n---\nRead.\n",
    "a.txt": "alpha\n",
  });
});

const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("-p as Claude Code's", () => {
  it("prints the answer alone on stdout, exit 0; --verbose shows the run on stderr", async ({
    fake,
    claude,
  }) => {
    const script = () => [call("Read", { file_path: "a.txt" }), text("It says alpha.")];
    fake.push(...script(), ...script());
    const r = await claude(["-p", "what does a.txt say?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("It says alpha.\n");
    expect(r.stderr).toBe("");
    const v = await claude(["-p", "--verbose", "what does a.txt say?"]);
    expect(v.stdout).toBe("It says alpha.\n");
    expect(v.stderr).toMatch(/Read a\.txt → ok/);
  });

  it("reads the prompt from standard input when none is given", async ({ fake, cli }) => {
    fake.push(text("from stdin"));
    const r = await cli(["-p"], { input: "hello there\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("from stdin\n");
    const first = fake.requests[0]?.body.messages[0];
    expect(JSON.stringify(first?.content)).toContain("hello there");
  });

  it("--output-format json prints one result message", async ({ fake, claude }) => {
    fake.push(text("done"));
    const r = await claude(["-p", "--output-format", "json", "hi"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      num_turns: 1,
      result: "done",
      permission_denials: [],
    });
    expect(typeof out.session_id).toBe("string");
    expect(out.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  });

  it("--output-format stream-json: system init, assistant, user, result; a subagent's turns carry parent_tool_use_id", async ({
    fake,
    claude,
  }) => {
    fake.push(
      call("Task", { subagent_type: "reader", description: "read", prompt: "read a.txt" }, "toolu_task"),
      call("Read", { file_path: "a.txt" }, "toolu_read"),
      text("alpha"),
      call("Bash", { command: "rm -rf a.txt" }, "toolu_rm"),
      text("done"),
    );
    const r = await claude(["-p", "--output-format", "stream-json", "--verbose", "go"]);
    expect(r.code).toBe(0);
    const msgs = lines(r.stdout);
    expect(msgs[0]).toMatchObject({ type: "system", subtype: "init", model: expect.any(String) });
    expect(msgs[0]?.tools).toEqual(expect.arrayContaining(["Read", "Task", "Bash"]));
    expect(msgs.map((m) => `${m.type}:${m.parent_tool_use_id ?? "-"}`)).toEqual([
      "system:-",
      "assistant:-",
      "assistant:toolu_task",
      "user:toolu_task",
      "assistant:toolu_task",
      "user:-",
      "assistant:-",
      "user:-",
      "assistant:-",
      "result:-",
    ]);
    const sessions = new Set(msgs.map((m) => m.session_id));
    expect(sessions.size).toBe(1);
    const last = msgs.at(-1) as { subtype: string; result: string; permission_denials: unknown[] };
    expect(last.subtype).toBe("success");
    expect(last.result).toBe("done");
    expect(last.permission_denials).toEqual([
      { tool_name: "Bash", tool_use_id: "toolu_rm", tool_input: { command: "rm -rf a.txt" } },
    ]);
  });

  it("--max-turns: a run that reaches it exits 1 with error_max_turns", async ({ fake, claude }) => {
    fake.push(call("Read", { file_path: "a.txt" }), call("Read", { file_path: "a.txt" }), text("never"));
    const r = await claude(["-p", "--max-turns", "1", "--output-format", "json", "go"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("--system-prompt replaces agent.md's body, --append-system-prompt adds to it; --model picks the model", async ({
    fake,
    claude,
  }) => {
    fake.push(text("a"), text("b"));
    await claude(["-p", "--system-prompt", "You are terse.", "--model", "haiku", "x"]);
    await claude(["-p", "--append-system-prompt", "Answer in French.", "y"]);
    const system = (i: number) => JSON.stringify(fake.requests[i]?.body.system);
    expect(system(0)).toContain("You are terse.");
    expect(system(0)).not.toContain("Be brief.");
    expect(fake.requests[0]?.body.model).toBe("claude-haiku-5-5");
    expect(system(1)).toMatch(/Be brief\..*Answer in French\./);
  });

  it("-c continues the most recent session; -r ID resumes a named one", async ({ fake, claude }) => {
    fake.push(text("first answer"), text("second answer"), text("third"));
    const one = JSON.parse((await claude(["-p", "--output-format", "json", "remember 42"])).stdout);
    await claude(["-p", "-c", "what number?"]);
    const texts = (i: number) => JSON.stringify(fake.requests[i]?.body.messages);
    expect(texts(1)).toContain("remember 42");
    expect(texts(1)).toContain("first answer");
    await claude(["-p", "-r", one.session_id, "and now?"]);
    expect(texts(2)).toContain("second answer");
  });

  it("honours ANTHROPIC_MODEL and ANTHROPIC_AUTH_TOKEN", async ({ dir, fake }) => {
    fake.push(text("ok"));
    const r = await runCli(["-p", "hi"], {
      cwd: dir,
      env: {
        ANTHROPIC_AUTH_TOKEN: "tok",
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_MODEL: "opus",
        HOME: path.join(dir, "home"),
      },
    });
    expect(r.code).toBe(0);
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer tok");
    expect(fake.requests[0]?.body.model).toBe("claude-opus-5-5");
  });

  it("--allowed-tools and --disallowedTools as Claude Code spells them", async ({ fake, claude }) => {
    fake.push(call("Read", { file_path: "a.txt" }), text("done"));
    await claude(["-p", "--disallowedTools", "Read", "go"]);
    expect(resultText(resultsSent(fake, 1)[0])).toContain("Read is not allowed");
  });
});

describe("usage the way Claude Code users type it", () => {
  it("--version and -v print the version", async ({ dir }) => {
    for (const flag of ["--version", "-v"]) {
      const r = await runCli([flag], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+ \(agentmd-cli\)\n$/);
    }
  });

  it("an unknown flag or command is exit 2 with a did-you-mean", async ({ dir }) => {
    const flag = await runCli(["-p", "--alowedTools", "Read", "hi"], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("did you mean '--allowedTools'?");
    const cmd = await runCli(["rnu", "hi"], { cwd: dir });
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("did you mean 'run'?");
    const version = await runCli(["--verison"], { cwd: dir });
    expect(version.code).toBe(2);
    expect(version.stderr).toContain("did you mean '--version'?");
    const rule = await runCli(["-p", "--allowedTools", "Bash(", "hi"], {
      cwd: dir,
      env: { ANTHROPIC_API_KEY: "k" },
    });
    expect(rule.code).toBe(2);
    expect(rule.stderr).toContain("--allowedTools: tool entry 'Bash(' has a '(' that is never closed");
    const cwd = await runCli(["-p", "--cwd", "no-such-folder", "hi"], {
      cwd: dir,
      env: { ANTHROPIC_API_KEY: "k" },
    });
    expect(cwd.code).toBe(2);
    expect(cwd.stderr).toContain("--cwd: no such folder: no-such-folder");
    expect(existsSync(path.join(dir, "no-such-folder"))).toBe(false);
    const mode = await runCli(["-p", "--permission-mode", "plann", "hi"], { cwd: dir });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain("did you mean 'plan'?");
  });

  it("--output-format takes text, json or stream-json only", async ({ dir }) => {
    const r = await runCli(["-p", "--output-format", "xml", "hi"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--output-format");
  });
});
