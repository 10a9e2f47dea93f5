import { chmodSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { type CliRun, runCli } from "../support/cli.js";
import { test } from "../support/fixture.js";
import { jsonLines } from "../support/runs.js";
import { call, promptOf, resultsSent, resultText, text } from "../support/script.js";
import { writeFiles } from "../support/tools.js";
import { trustProject } from "../support/trust.js";

/**
 * A Claude Code project as it is (`.claude/` with settings, agents and commands, a CLAUDE.md, no
 * agent.md), through the CLI: the permissions and context Claude Code would give it.
 */

const SETTINGS = {
  permissions: {
    allow: ["Bash(echo:*)", "Edit(/src/**)"],
    deny: ["Bash(rm:*)", "Read(./.env)"],
    ask: ["Bash(git push:*)"],
  },
  env: { GREETING: "from-settings" },
};

const it = test.extend<{
  run: (args: string[], cwd?: string) => Promise<CliRun>;
  told: (i: number, k?: number) => string;
  tools: (args: string[]) => Promise<CliRun>;
}>({
  run: async ({ dir, env }, use) => {
    await use((args, cwd = dir) => runCli(["run", "--output", "stream-json", ...args], { cwd, env }));
  },
  told: async ({ fake }, use) => {
    await use((i, k = 0) => resultText(resultsSent(fake, i)[k]));
  },
  tools: async ({ dir }, use) => {
    await use((args) => runCli(["tools", ...args], { cwd: dir, env: { HOME: path.join(dir, "home") } }));
  },
});

it.beforeEach(({ dir }) => {
  writeFiles(dir, {
    ".claude/settings.json": JSON.stringify(SETTINGS, null, 2),
    ".claude/agents/security-auditor.md":
      "---\nname: security-auditor\ndescription: Audits code.\ntools: Read, Bash\n---\nYou audit.\n",
    "notes.txt": "hello\n",
    ".env": "SECRET=1\n",
  });
  // The settings' env is the project's code: trusted, as after `agentmd trust`, so that it applies.
  trustProject(dir);
});
describe("settings: nothing runs unrestricted by accident", () => {
  it("tools --try judges a call as a run would: denied by a settings rule, needing approval, or allowed", async ({
    tools,
  }) => {
    const rm = await tools(["--try", "Bash", '{"command":"rm -rf /"}']);
    expect(rm.code).toBe(3);
    expect(rm.stdout).toContain("denied (denied-by-rule)");
    expect(rm.stdout).toContain("'Bash(rm:*)'");
    // A read-only command in the working folders runs as a Read there would; a touch asks.
    expect((await tools(["--try", "Bash", '{"command":"ls"}'])).code).toBe(0);
    const touch = await tools(["--try", "Bash", '{"command":"touch x"}']);
    expect(touch.code).toBe(4);
    expect(touch.stdout).toMatch(/^needs approval \(it is not pre-approved\)/);
    expect((await tools(["--try", "Bash", '{"command":"echo hi"}'])).code).toBe(0);
    expect((await tools(["--try", "Read", '{"file_path":".env"}'])).code).toBe(3);
    expect((await tools(["--try", "Read", '{"file_path":"notes.txt"}'])).code).toBe(0);
    const pushed = await tools(["--try", "Bash", '{"command":"git push"}', "--allowedTools", "Bash(git:*)"]);
    expect(pushed.code).toBe(4);
    expect(
      (await tools(["--try", "Bash", '{"command":"touch x"}', "--allowedTools", "Bash(touch:*)"])).code,
    ).toBe(0);
    expect((await tools(["--try", "Bash", '{"command":"ls"}', "--permission-mode", "plan"])).code).toBe(0);
    expect((await tools(["--try", "Write", '{"file_path":"a"}', "--permission-mode", "plan"])).code).toBe(3);
  });

  it("tools shows the settings, their deny rules with file:line, and the approval tier", async ({
    tools,
  }) => {
    const r = await tools([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("settings: .claude/settings.json");
    expect(r.stdout).toMatch(/except rm:\*\s+\[deny \.claude\/settings\.json:\d+:\d+\]/);
    expect(r.stdout).toContain("approval: default mode");
    expect(r.stdout).toContain("pre-approved: Bash(echo:*), Edit(src/**)");
    expect(r.stdout).toContain("asks each time: Bash(git push:*)");
  });

  it("a run denies what needs approval, saying how to allow it, runs what is pre-approved and what only reads", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    fake.push(
      call("Bash", { command: "touch made" }),
      call("Bash", { command: "echo $GREETING" }),
      call("Read", { file_path: "notes.txt" }),
      call("Bash", { command: "rm -rf notes.txt" }),
      text("done"),
    );
    const r = await run(["go"]);
    expect(r.code).toBe(0);
    expect(told(1)).toBe(
      "Bash needs approval (it is not pre-approved), and this run cannot ask: allow it with --allowedTools 'Bash(touch:*)', or add \"Bash(touch:*)\" to permissions.allow in .claude/settings.json. The tool was not executed.",
    );
    expect(existsSync(path.join(dir, "made"))).toBe(false);
    expect(told(2)).toBe("from-settings\n[exit code 0]");
    expect(told(3)).toContain("hello");
    expect(told(4)).toContain("is denied by 'Bash(rm:*)'");
    expect(existsSync(path.join(dir, "notes.txt"))).toBe(true);
  });

  it("--allowedTools pre-approves, --disallowedTools denies at every hop", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    fake.push(call("Bash", { command: "touch made" }), text("done"));
    await run(["--allowedTools", "Bash(touch:*)", "go"]);
    expect(existsSync(path.join(dir, "made"))).toBe(true);
    fake.push(call("Read", { file_path: "notes.txt" }), text("done"));
    await run(["--disallowedTools", "Read", "go"]);
    expect(told(3)).toBe(
      "Read is not allowed: 'Read' in --disallowedTools:1 removes it. The tool was not executed.",
    );
  });

  it("the settings' deny rules bind a subagent too, and its calls need approval like the main agent's", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    fake.push(
      call("Task", { subagent_type: "security-auditor", description: "audit", prompt: "audit" }),
      call("Bash", { command: "rm -rf notes.txt" }),
      call("Bash", { command: "cp notes.txt copy.txt" }),
      text("audited"),
      call("Task", { subagent_type: "license-engineer", description: "x", prompt: "x" }),
      text("done"),
    );
    const r = await run(["go"]);
    expect(r.code).toBe(0);
    expect(told(2)).toContain("is denied by 'Bash(rm:*)'");
    expect(told(3)).toMatch(/^Bash needs approval \(it is not pre-approved\), and this run cannot ask/);
    expect(told(5)).toBe("no subagent named 'license-engineer'; loaded: security-auditor.");
    expect(existsSync(path.join(dir, "notes.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "copy.txt"))).toBe(false);
  });

  it("with agent.md, its list is the ceiling and the approval: settings narrow it, never widen it", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash(touch:*), Bash(rm:*), Read\n---\nMain.\n",
      ".claude/settings.json": JSON.stringify({
        permissions: { allow: ["Bash(curl:*)"], deny: ["Bash(rm:*)"] },
      }),
    });
    fake.push(
      call("Bash", { command: "touch made" }),
      call("Bash", { command: "rm made" }),
      call("Bash", { command: "curl https://example.com" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toBe("[exit code 0]");
    expect(told(2)).toContain("is denied by 'Bash(rm:*)'");
    expect(told(3)).toContain("is not allowed");
    expect(existsSync(path.join(dir, "made"))).toBe(true);
  });

  it("an ask rule holds for every part of a compound command, with agent.md too", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "agent.md": "---\nallowed-tools: Bash\n---\nMain.\n",
      ".claude/settings.json": JSON.stringify({ permissions: { ask: ["Bash(touch:*)"] } }),
    });
    fake.push(
      call("Bash", { command: "echo hi; touch compound" }),
      call("Bash", { command: "echo hi" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toMatch(
      /^Bash needs approval each time \(a permissions.ask rule asks for it each time\)/,
    );
    expect(existsSync(path.join(dir, "compound"))).toBe(false);
    expect(told(2)).toBe("hi\n[exit code 0]");
  });

  it("WebSearch runs on the API's side, so without agent.md it is offered only when pre-approved", async ({
    dir,
    fake,
    env,
    run,
    tools,
  }) => {
    fake.push(text("a"), text("b"));
    await run(["hi"]);
    const names = (i: number) =>
      (fake.requests[i]?.body.tools ?? []).map((t) => (t as { name: string }).name);
    expect(names(0)).not.toContain("web_search");
    await runCli(["run", "--allowedTools", "WebSearch(domain:example.com)", "hi"], { cwd: dir, env });
    expect(names(1)).toContain("web_search");
    const search = (fake.requests[1]?.body.tools ?? []).find(
      (t) => (t as { name: string }).name === "web_search",
    );
    expect(search).toMatchObject({ type: "web_search_20250305", allowed_domains: ["example.com"] });
    // agentmd tools says the same as the run
    const shown = (await tools([])).stdout;
    expect(shown).not.toMatch(/^ {2}WebSearch +every call$/m);
    expect(shown).toContain("WebSearch: at the approval tier, it runs on the API's side");
    const approved = (await tools(["--allowedTools", "WebSearch"])).stdout;
    expect(approved).toMatch(/^ {2}WebSearch +every call$/m);
  });

  it("plan mode (defaultMode) runs reading calls only", async ({ dir, fake, run, told }) => {
    writeFiles(dir, { ".claude/settings.local.json": '{ "permissions": { "defaultMode": "plan" } }' });
    fake.push(
      call("Write", { file_path: "x.txt", content: "x" }),
      call("Bash", { command: "cat notes.txt" }),
      text("done"),
    );
    await run(["go"]);
    expect(told(1)).toBe(
      "Write is not run in plan mode, which only reads and plans. The tool was not executed.",
    );
    expect(told(2)).toBe("hello\n[exit code 0]");
    expect(existsSync(path.join(dir, "x.txt"))).toBe(false);
  });

  it("malformed settings stop the run before any request, at file:line; check reports them too", async ({
    dir,
    fake,
    run,
    tools,
  }) => {
    writeFiles(dir, {
      ".claude/settings.json": '{\n  "permissions": {\n    "denny": ["Bash(rm:*)"]\n  }\n}\n',
    });
    fake.push(text("never"));
    const r = await run(["go"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      ".claude/settings.json:3:5: unknown key 'permissions.denny'; did you mean 'deny'?",
    );
    expect(fake.requests).toHaveLength(0);
    const c = await runCli(["check"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(c.code).toBe(1);
    expect(c.stdout).toContain(".claude/settings.json:3:5: error: unknown key 'permissions.denny'");
    const t = await tools([]);
    expect(t.code).toBe(1);
  });

  it.for<[string, string, string]>([
    [
      "a hook event written as a map",
      '{\n  "permissions": { "allow": ["Bash"] },\n  "hooks": { "PreToolUse": { "matcher": "Bash", "command": "exit 2" } }\n}\n',
      ".claude/settings.json:3:28: 'hooks.PreToolUse' must be a list",
    ],
    [
      "a misspelled hook command",
      '{\n  "permissions": { "allow": ["Bash"] },\n  "hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "comand": "exit 2" }] }] }\n}\n',
      ".claude/settings.json:3:81: unknown key 'hooks.PreToolUse.0.hooks.0.comand'; did you mean 'command'?",
    ],
    [
      "a deny list given twice",
      '{\n  "permissions": {\n    "allow": ["Bash"],\n    "deny": ["Bash"],\n    "deny": []\n  }\n}\n',
      '.claude/settings.json:5:5: settings.json has the key "deny" twice in one object',
    ],
    [
      "a deny list outside permissions",
      '{\n  "permissions": { "allow": ["Bash"] },\n  "deny": ["Bash"]\n}\n',
      ".claude/settings.json:3:3: unknown key 'deny'; did you mean 'permissions.deny'?",
    ],
    [
      "a deny list under another name",
      '{\n  "permissions": { "allow": ["Bash"], "block": ["Bash"] }\n}\n',
      ".claude/settings.json:2:39: unknown key 'permissions.block'; did you mean 'deny'?",
    ],
  ])("settings with %s stop the run before any request", async ([, json, message], { dir, fake, run }) => {
    writeFiles(dir, { ".claude/settings.json": json });
    fake.push(call("Bash", { command: "touch ran" }), text("done"));
    const r = await run(["go"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(path.join(dir, "ran"))).toBe(false);
  });

  it("hooks see CLAUDE_PROJECT_DIR from any working folder; disableAllHooks turns the settings' hooks off", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    const hook = {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/guard.sh' }] },
      ],
    };
    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({ ...SETTINGS, hooks: hook }),
      "guard.sh": '#!/bin/sh\necho "blocked from $CLAUDE_PROJECT_DIR" >&2\nexit 2\n',
      "sub/.keep": "",
    });
    chmodSync(path.join(dir, "guard.sh"), 0o755);
    trustProject(dir);
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    await run(["go"], path.join(dir, "sub"));
    expect(told(1)).toBe(`Blocked by a PreToolUse hook: blocked from ${dir}`);
    writeFiles(dir, { ".claude/settings.local.json": '{ "disableAllHooks": true }' });
    fake.push(call("Bash", { command: "echo hi" }), text("done"));
    await run(["go"], path.join(dir, "sub"));
    expect(told(3)).toBe("hi\n[exit code 0]");
  });

  it("disableBypassPermissionsMode keeps bypassPermissions off, before any request", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      ".claude/settings.json": JSON.stringify({
        permissions: { ...SETTINGS.permissions, disableBypassPermissionsMode: "disable" },
      }),
    });
    fake.push(text("never"));
    const r = await run(["--permission-mode", "bypassPermissions", "go"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("bypassPermissions mode is turned off by the settings");
    expect(fake.requests).toHaveLength(0);
  });

  it("a command's allowed-tools pre-approve its own calls, as Claude Code's do", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      ".claude/commands/stamp.md":
        "---\nallowed-tools: Bash(touch:*), Bash(date:*)\n---\nToday: !`date +%Y`\nStamp it.\n",
    });
    fake.push(call("Bash", { command: "touch stamped" }), text("done"));
    const r = await run(["/stamp"]);
    expect(r.code).toBe(0);
    expect(promptOf(fake, 0)).toMatch(/^Today: \d{4}\nStamp it\./);
    expect(existsSync(path.join(dir, "stamped"))).toBe(true);
  });
});

describe("approvals in chat", () => {
  it("asks, and a user answers yes, no with a reason, and always (for the session)", async ({
    dir,
    fake,
    cli,
    told,
  }) => {
    fake.push(
      call("Bash", { command: "touch one" }),
      call("Bash", { command: "touch two" }),
      call("Bash", { command: "touch three" }),
      call("Bash", { command: "touch four" }),
      text("done"),
    );
    const r = await cli(["chat"], {
      input: "make files\ny\nno, not that one\na\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("main wants to run Bash: touch one  (it is not pre-approved)");
    expect(r.stdout).toContain("[a] always: Bash(touch:*) for this session");
    expect(existsSync(path.join(dir, "one"))).toBe(true);
    expect(existsSync(path.join(dir, "two"))).toBe(false);
    expect(told(2)).toBe("A user denied this Bash call: not that one. The tool was not executed.");
    expect(existsSync(path.join(dir, "three"))).toBe(true);
    expect(existsSync(path.join(dir, "four"))).toBe(true);
    expect(r.stdout.match(/wants to run/g)).toHaveLength(3);
  });

  it("an input that ends while a question waits is a no", async ({ dir, fake, cli, told }) => {
    fake.push(call("Bash", { command: "touch one" }), text("done"));
    const r = await cli(["chat"], { input: "make a file\n" });
    expect(r.code).toBe(0);
    expect(told(1)).toBe("A user denied this Bash call: no one answered. The tool was not executed.");
    expect(existsSync(path.join(dir, "one"))).toBe(false);
  });
});

describe("memory and context", () => {
  it("gives the main agent CLAUDE.md and its kin down to the working folder, with imports under the Read rules", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, {
      "CLAUDE.md": "# Project\nUse tabs. See @docs/style.md and @.env and `@not/an/import.md`.\n",
      "docs/style.md": "Style: short functions. More in @deeper.md\n",
      "docs/deeper.md": "Deeper rule.\n",
      ".claude/CLAUDE.md": "Claude folder memory.\n",
      "CLAUDE.local.md": "My private notes.\n",
      "pkg/AGENTS.md": "Package rules from AGENTS.md.\n",
      "pkg/sub/CLAUDE.md": "Sub folder memory.\n",
      "home/.claude/CLAUDE.md": "User memory.\n",
      "not/an/import.md": "never\n",
    });
    fake.push(text("ok"));
    const r = await run(["hi"], path.join(dir, "pkg", "sub"));
    expect(r.code).toBe(0);
    const system = ((fake.requests[0]?.body.system ?? []) as { text: string }[])[0]?.text ?? "";
    const order = [
      "<env>",
      `Working directory: ${path.join(dir, "pkg", "sub")}`,
      "User memory.",
      "Use tabs.",
      "Style: short functions.",
      "Deeper rule.",
      "Claude folder memory.",
      "My private notes.",
      "Package rules from AGENTS.md.",
      "Sub folder memory.",
    ].map((s) => system.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).not.toContain("SECRET");
    expect(system).not.toContain("never");
    const warnings = jsonLines(r.stdout).filter((e) => e.type === "warning");
    expect(warnings.map((e) => (e as { message: string }).message)).toContain(
      `memory not given: ${path.join(dir, ".env")}: the Read rules of this session do not allow it`,
    );
  });

  it("an empty agent.md body still gets the context; memory: false turns it off", async ({
    dir,
    fake,
    run,
  }) => {
    writeFiles(dir, { "CLAUDE.md": "Remember this.\n", "agent.md": "---\nallowed-tools: Read\n---\n" });
    fake.push(text("ok"), text("ok"));
    await run(["hi"]);
    const first = ((fake.requests[0]?.body.system ?? []) as { text: string }[])[0]?.text ?? "";
    expect(first).toContain("Remember this.");
    expect(first).toMatch(/^Here is useful information about the environment/);
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmemory: false\n---\nMain.\n" });
    await run(["hi"]);
    expect(fake.requests[1]?.body.system).toEqual([
      { type: "text", text: "Main.", cache_control: { type: "ephemeral" } },
    ]);
  });
});

describe("definitions where Claude Code finds them", () => {
  it("loads the user's own subagents; a project's of the same name wins, said as info", async ({
    dir,
    fake,
    run,
    told,
  }) => {
    writeFiles(dir, {
      "home/.claude/agents/helper.md":
        "---\nname: helper\ndescription: The user's helper.\ntools: Read\n---\nUser helper.\n",
      "home/.claude/agents/security-auditor.md":
        "---\nname: security-auditor\ndescription: The user's.\ntools: Read\n---\nUser auditor.\n",
      "home/.claude/commands/hi.md": "Say hi.\n",
    });
    const c = await runCli(["check"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    expect(c.stdout).toMatch(/security-auditor\.md:1:1: info: .*project/);
    fake.push(
      call("Task", { subagent_type: "helper", description: "h", prompt: "h" }),
      text("helped"),
      text("done"),
    );
    await run(["go"]);
    expect(fake.requests[1]?.body.system).toEqual([
      { type: "text", text: "User helper.", cache_control: { type: "ephemeral" } },
    ]);
    expect(told(2)).toBe("helped");
  });
});

describe("check knows what a run would meet", () => {
  it("a body's !cmd its list refuses is an error; names that match nothing and unknown models are warnings", async ({
    dir,
  }) => {
    writeFiles(dir, {
      ".claude/commands/ship.md": "---\nallowed-tools: Bash(git status:*)\n---\nState: !`git push`\nShip.\n",
      // A compound line is read by the shell parser, as the run would read it.
      ".claude/commands/ok.md":
        "---\nallowed-tools: Bash(git status:*)\n---\nState: !`git status && git status -s`\n",
      ".claude/agents/lead.md":
        "---\nname: lead\ndescription: Leads.\nmodel: gpt-5\ntools: Task(reviewr), Skill(nothing-here), mcp__github__get_issue\n---\nLead.\n",
    });
    const c = await runCli(["check"], { cwd: dir, env: { HOME: path.join(dir, "home") } });
    const lines = c.stdout.split("\n");
    const find = (s: string) => lines.find((l) => l.includes(s)) ?? "";
    // Judged at the caller's level (no agent.md): a push needs approval, and check says what to add.
    expect(find("body-command-asks")).toMatch(
      /^\.claude\/commands\/ship\.md:4:1: warning: the command !`git push` needs approval .*add 'Bash\(git push:\*\)' to the allowed-tools of \.claude\/commands\/ship\.md:2/,
    );
    expect(lines.some((l) => l.startsWith(".claude/commands/ok.md") && l.includes("error"))).toBe(false);
    expect(find("'Task(reviewr)'")).toContain("warning: 'Task(reviewr)' names no subagent that is loaded");
    expect(find("'Skill(nothing-here)'")).toContain("warning");
    expect(find("'mcp__github__get_issue'")).toContain("names no MCP server");
    expect(find("unknown-model")).toMatch(/lead\.md:4:1: warning: model 'gpt-5' is neither an alias/);
    // Warnings only: a line that needs approval is not an error.
    expect(c.code).toBe(0);
  });

  it("a model without a known price shows its cost as unknown, never $0", async ({ dir, fake, env }) => {
    writeFiles(dir, { "agent.md": "---\nallowed-tools: Read\nmodel: claude-unpriced-9\n---\nMain.\n" });
    fake.push(text("ok"), text("ok"));
    const r = await runCli(["run", "hi"], { cwd: dir, env });
    expect(r.stdout).toContain("cost unknown");
    expect(r.stdout).not.toContain("$0.0000");
    const j = await runCli(["run", "--output", "json", "hi"], { cwd: dir, env });
    expect(JSON.parse(j.stdout)).toMatchObject({ costUsd: null, costUnknown: true });
  });
});

it("the settings file is read as written: what the tests set is what a run sees", ({ dir }) => {
  expect(JSON.parse(readFileSync(path.join(dir, ".claude/settings.json"), "utf8"))).toEqual(SETTINGS);
});
