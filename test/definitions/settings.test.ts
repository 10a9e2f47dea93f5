import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSettings } from "../../src/definitions/settings.js";
import { settingsHooks } from "../../src/definitions/settings-hooks.js";
import { toolNames } from "../../src/definitions/tool-names.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import { brief, tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const known = toolNames(builtinCatalog().names);
const user = () => path.join(dir, "home", ".claude");
const load = () => loadSettings(path.join(dir, "p"), user(), known);
const settings = (files: Record<string, unknown>) =>
  writeFiles(
    dir,
    Object.fromEntries(
      Object.entries(files).map(([f, v]) => [f, typeof v === "string" ? v : JSON.stringify(v, null, 2)]),
    ),
  );
const rules = (entries: readonly { raw: string; pattern?: string }[]) =>
  entries.map((e) =>
    e.pattern === undefined ? e.raw : `${e.raw.slice(0, e.raw.indexOf("("))}(${e.pattern})`,
  );

describe("settings files, as Claude Code merges them", () => {
  it("reads the user's, the project's and the local file: rules of all three, the most specific mode and env", () => {
    settings({
      "home/.claude/settings.json": {
        permissions: { deny: ["Bash(rm:*)"], defaultMode: "plan" },
        env: { A: "user", B: "user" },
      },
      "p/.claude/settings.json": { permissions: { allow: ["Bash(npm test:*)"], ask: ["Bash(git push:*)"] } },
      "p/.claude/settings.local.json": {
        permissions: { deny: ["WebFetch"], defaultMode: "acceptEdits" },
        env: { B: "local" },
      },
    });
    const { settings: s, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(rules(s.deny)).toEqual(["Bash(rm:*)", "WebFetch"]);
    expect(rules(s.allow)).toEqual(["Bash(npm test:*)"]);
    expect(rules(s.ask)).toEqual(["Bash(git push:*)"]);
    expect(s.defaultMode).toBe("acceptEdits");
    expect(s.env).toEqual({ A: "user", B: "local" });
    expect(s.files.map((f) => path.relative(dir, f))).toEqual([
      "home/.claude/settings.json",
      "p/.claude/settings.json",
      "p/.claude/settings.local.json",
    ]);
  });

  it("takes Claude Code's path grammar: //x is absolute, /x is the settings' folder, ~/ is home", () => {
    settings({
      "home/.claude/settings.json": { permissions: { deny: ["Read(/secrets/**)"] } },
      "p/.claude/settings.json": {
        permissions: {
          allow: [
            "Edit(/src/**)",
            "Read(//etc/hosts)",
            "Read(~/notes.md)",
            "Read(docs/**)",
            "Bash(/bin/ls:*)",
          ],
        },
      },
    });
    const s = load().settings;
    expect(s.deny.map((e) => e.pattern)).toEqual(["~/secrets/**"]);
    expect(s.allow.map((e) => e.pattern)).toEqual([
      "src/**",
      "/etc/hosts",
      "~/notes.md",
      "docs/**",
      "/bin/ls:*",
    ]);
  });

  it("reads additionalDirectories against the project, and hooks of the events agentmd runs", () => {
    settings({
      "p/.claude/settings.json": {
        permissions: { additionalDirectories: ["../shared", "/opt/data"] },
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }],
          Stop: [{ hooks: [{ type: "command", command: "true" }] }],
          PermissionRequest: [{ hooks: [{ type: "command", command: "true" }] }],
        },
      },
    });
    const { settings: s, diagnostics } = load();
    expect(s.additionalDirectories).toEqual([path.join(dir, "shared"), "/opt/data"]);
    expect(s.hooks?.PreToolUse).toEqual([{ matcher: "Bash", command: "./guard.sh", origin: "project" }]);
    // Stop is run now; PermissionRequest is Claude Code's and not run (a warning).
    expect(s.hooks?.Stop).toEqual([{ matcher: ".*", command: "true", origin: "project" }]);
    expect(diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(["warning hook-event-not-run"]);
  });

  it("expands ~ in additionalDirectories; the user's file resolves relative folders against home", () => {
    settings({
      "home/.claude/settings.json": { permissions: { additionalDirectories: ["notes", "~/work"] } },
      "p/.claude/settings.json": { permissions: { additionalDirectories: ["~", "lib"] } },
    });
    const { settings: s, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(s.additionalDirectories).toEqual([
      path.join(dir, "home", "notes"),
      path.join(dir, "home", "work"),
      path.join(dir, "home"),
      path.join(dir, "p", "lib"),
    ]);
  });

  it("reads disableAllHooks, the .mcp.json server lists and disableBypassPermissionsMode", () => {
    settings({
      "home/.claude/settings.json": { disabledMcpjsonServers: ["a"] },
      "p/.claude/settings.json": {
        enabledMcpjsonServers: ["a", "b"],
        permissions: { disableBypassPermissionsMode: "disable" },
      },
      "p/.claude/settings.local.json": { disableAllHooks: true, disabledMcpjsonServers: ["c"] },
    });
    const { settings: s, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    // The local file is the project folder's: it turns off the project's hooks, not the user's.
    expect(s.disableAllHooks).toBe("project");
    expect(s.bypassDisabled).toBe(true);
    expect(s.enabledMcpjsonServers).toEqual(["a", "b"]);
    expect(s.disabledMcpjsonServers).toEqual(["a", "c"]);
  });

  it("a hook of another type is said, not silently dropped, and not run", () => {
    settings({
      "p/.claude/settings.json": {
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "prompt", prompt: "is it safe?", command: "exit 2" },
                { type: "command", command: "./guard.sh", statusMessage: "checking" },
              ],
            },
          ],
        },
      },
    });
    const { settings: s, diagnostics } = load();
    expect(diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message}`)).toEqual([
      "warning hook-type-not-run: a 'prompt' hook is not run by agentmd (it runs command hooks only); it is ignored",
    ]);
    expect(s.hooks?.PreToolUse).toEqual([{ matcher: "Bash", command: "./guard.sh", origin: "project" }]);
  });
});

describe("malformed settings: a diagnostic at file:line, never silently unrestricted", () => {
  const cases: [string, string, string[]][] = [
    [
      "JSON that does not parse",
      '{\n  "permissions": {\n    "deny": ["Bash(rm:*)",\n  }\n}\n',
      ["p/.claude/settings.json:4:3 error settings-json"],
    ],
    [
      "a misspelled rule list",
      '{\n  "permissions": {\n    "denny": ["Bash(rm:*)"]\n  }\n}\n',
      ["p/.claude/settings.json:3:5 error settings-key"],
    ],
    [
      "a misspelled top-level key",
      '{\n  "permisions": {}\n}\n',
      ["p/.claude/settings.json:2:3 error settings-key"],
    ],
    [
      "a rule list that is not a list",
      '{\n  "permissions": { "deny": "Bash(rm:*)" }\n}\n',
      ["p/.claude/settings.json:2:28 error settings-type"],
    ],
    [
      "a rule that is not a string",
      '{\n  "permissions": { "deny": [42] }\n}\n',
      ["p/.claude/settings.json:2:29 error settings-type"],
    ],
    [
      "an unbalanced rule",
      '{\n  "permissions": {\n    "deny": ["Bash(rm:*"]\n  }\n}\n',
      ["p/.claude/settings.json:3:15 error tool-entry-syntax"],
    ],
    [
      "an unknown mode",
      '{\n  "permissions": { "defaultMode": "yolo" }\n}\n',
      ["p/.claude/settings.json:2:35 error settings-value"],
    ],
    [
      "a misspelled hook event",
      '{\n  "hooks": { "PreToolUse ": [] , "pretooluse": [] }\n}\n',
      [
        "p/.claude/settings.json:2:14 error unknown-hook-event",
        "p/.claude/settings.json:2:34 error unknown-hook-event",
      ],
    ],
    ["not an object", "[1, 2]\n", ["p/.claude/settings.json:1:1 error settings-type"]],
    [
      "a rule list given twice (JSON keeps the last)",
      '{\n  "permissions": {\n    "deny": ["Bash"],\n    "deny": []\n  }\n}\n',
      ["p/.claude/settings.json:4:5 error settings-json"],
    ],
    [
      "a top-level key given twice",
      '{\n  "permissions": { "deny": ["Bash"] },\n  "permissions": {}\n}\n',
      ["p/.claude/settings.json:3:3 error settings-json"],
    ],
    [
      "a misspelled disableAllHooks",
      '{\n  "disableAllHook": true\n}\n',
      ["p/.claude/settings.json:2:3 error settings-key"],
    ],
    [
      "a disableAllHooks that is not a boolean",
      '{\n  "disableAllHooks": "yes"\n}\n',
      ["p/.claude/settings.json:2:22 error settings-type"],
    ],
    [
      "a disableBypassPermissionsMode other than disable",
      '{\n  "permissions": { "disableBypassPermissionsMode": true }\n}\n',
      ["p/.claude/settings.json:2:52 error settings-value"],
    ],
  ];
  it.each([
    [
      "an event that is a map, not a list",
      { PreToolUse: { matcher: "Bash", command: "exit 2" } },
      "hook-shape",
      "'hooks.PreToolUse' must be a list; each event takes a list of",
    ],
    [
      "a misspelled 'command'",
      { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", comand: "exit 2" }] }] },
      "hook-key",
      "unknown key 'hooks.PreToolUse.0.hooks.0.comand'; did you mean 'command'?",
    ],
    [
      "a misspelled 'hooks'",
      { PreToolUse: [{ matcher: "Bash", hook: [{ type: "command", command: "exit 2" }] }] },
      "hook-key",
      "unknown key 'hooks.PreToolUse.0.hook'; did you mean 'hooks'?",
    ],
    [
      "a misspelled 'matcher'",
      { PreToolUse: [{ matchr: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] },
      "hook-key",
      "unknown key 'hooks.PreToolUse.0.matchr'; did you mean 'matcher'?",
    ],
    [
      "a command hook without its command",
      { PostToolUse: [{ hooks: [{ type: "command" }] }] },
      "hook-shape",
      "a command hook needs 'command'",
    ],
    [
      "a command that is not text",
      { PreToolUse: [{ hooks: [{ command: ["exit", "2"] }] }] },
      "hook-shape",
      "a command hook needs 'command'",
    ],
    [
      "a misspelled type",
      { PreToolUse: [{ hooks: [{ type: "comand", command: "exit 2" }] }] },
      "hook-shape",
      "unknown hook type \"comand\" at 'hooks.PreToolUse.0.hooks.0'; did you mean 'command'?",
    ],
    [
      "an entry with neither hooks nor command",
      { PreToolUse: [{ matcher: "Bash" }] },
      "hook-shape",
      "'hooks.PreToolUse.0' has no 'hooks' list and no 'command'",
    ],
    [
      "an entry that is not a map",
      { PreToolUse: ["exit 2"] },
      "hook-shape",
      "'hooks.PreToolUse.0' must be a map",
    ],
    ["hooks that are not a map", ["exit 2"], "hook-shape", "'hooks' must be a map of events"],
    [
      "a timeout that is not a number",
      { PreToolUse: [{ hooks: [{ command: "x", timeout: "5" }] }] },
      "hook-shape",
      "'hooks.PreToolUse.0.hooks.0.timeout' must be a number of seconds above 0",
    ],
    [
      "exec-form arguments",
      { PreToolUse: [{ hooks: [{ command: "python3", args: ["guard.py"] }] }] },
      "hook-key",
      "agentmd does not read 'args'",
    ],
  ])("a hook that would never run is an error: %s", (_what, hooks, code, message) => {
    settings({ "p/.claude/settings.json": { permissions: { allow: ["Bash"] }, hooks } });
    const { settings: s, diagnostics } = load();
    expect(diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([`error ${code}`]);
    expect(diagnostics[0]?.message).toContain(message);
    expect(s.hooks).toBeUndefined();
  });

  it("a hook error is at the line and column of the part that is wrong", () => {
    settings({
      "p/.claude/settings.json":
        '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "comand": "exit 2" }] }\n    ]\n  }\n}\n',
    });
    expect(load().diagnostics.map((d) => brief(d, dir))).toEqual([
      "p/.claude/settings.json:4:59 error hook-key",
    ]);
  });

  it.each(cases)("%s", (_what, text, expected) => {
    settings({ "p/.claude/settings.json": text });
    const { diagnostics } = load();
    expect(diagnostics.map((d) => brief(d, dir))).toEqual(expected);
  });

  it.each([
    [{ permissions: { denied: ["Bash"] } }, "permissions.denied", "'deny'"],
    [{ permissions: { disallow: ["Bash"] } }, "permissions.disallow", "'deny'"],
    [{ permissions: { block: ["Bash"] } }, "permissions.block", "'deny'"],
    [{ permissions: { blockedTools: ["Bash"] } }, "permissions.blockedTools", "'deny'"],
    [{ permissions: { excludedTools: ["Bash"] } }, "permissions.excludedTools", "'deny'"],
    [{ permissions: { permitted: ["Read"] } }, "permissions.permitted", "'allow'"],
    [{ permissions: { tools: ["Read"] } }, "permissions.tools", "'allow' or 'deny'"],
    [{ deny: ["Bash"] }, "deny", "'permissions.deny'"],
    [{ allow: ["Read"] }, "allow", "'permissions.allow'"],
    [{ ask: ["Bash"] }, "ask", "'permissions.ask'"],
    [{ defaultMode: "plan" }, "defaultMode", "'permissions.defaultMode'"],
    [{ disallowedTools: ["Bash"] }, "disallowedTools", "'permissions.deny'"],
    [{ blocklist: ["Bash"] }, "blocklist", "'permissions.deny'"],
    [{ allowedTools: ["Read"] }, "allowedTools", "'permissions.allow'"],
    [{ permissionRules: { deny: ["Bash"] } }, "permissionRules", "'permissions'"],
  ])("a key named like a rule list is an error with a did-you-mean: %j", (json, key, near) => {
    settings({ "p/.claude/settings.json": json });
    const { diagnostics } = load();
    expect(diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(["error settings-key"]);
    expect(diagnostics[0]?.message).toContain(`unknown key '${key}'; did you mean ${near}?`);
  });

  it.each([
    [
      { deniedMcpServers: [{ serverName: "x" }] },
      "'deniedMcpServers' is a Claude Code setting agentmd does not act on; it is ignored",
    ],
    [
      { skipDangerousModePermissionPrompt: true },
      "'skipDangerousModePermissionPrompt' is a Claude Code setting agentmd does not act on; it is ignored",
    ],
    [{ colour: "blue" }, "unknown key 'colour' is ignored"],
    [{ permissions: { colour: "blue" } }, "unknown key 'permissions.colour' is ignored"],
  ])("a Claude Code setting, or a key that speaks of no list, is a warning: %j", (json, message) => {
    settings({ "p/.claude/settings.json": json });
    const { diagnostics } = load();
    expect(diagnostics.map((d) => `${d.severity} ${d.message}`)).toEqual([`warning ${message}`]);
  });

  it("an unknown key that is no near miss is a warning, and the rest of the file applies", () => {
    settings({ "p/.claude/settings.json": { statusLineX: 1, permissions: { deny: ["Bash(rm:*)"] } } });
    const { settings: s, diagnostics } = load();
    expect(diagnostics.map((d) => `${d.severity} ${d.message}`)).toEqual([
      "warning unknown key 'statusLineX' is ignored",
    ]);
    expect(rules(s.deny)).toEqual(["Bash(rm:*)"]);
  });
});

describe("disableAllHooks: a project's file switches off the project's hooks, never the user's", () => {
  const FILES = {
    user: "home/.claude/settings.json",
    project: "p/.claude/settings.json",
    local: "p/.claude/settings.local.json",
  } as const;
  type File = keyof typeof FILES;
  const hook = (command: string) => ({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] },
  });
  /** The commands of the settings' PreToolUse hooks that run, with every file holding a hook. */
  const running = (off: readonly File[]) => {
    settings(
      Object.fromEntries(
        (Object.keys(FILES) as File[]).map((f) => [
          FILES[f],
          { ...hook(`${f}-guard`), ...(off.includes(f) && { disableAllHooks: true }) },
        ]),
      ),
    );
    const { settings: s, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    return (settingsHooks(s)?.PreToolUse ?? []).map((h) => h.command);
  };

  it.each<[string, File[], string[]]>([
    ["none", [], ["user-guard", "project-guard", "local-guard"]],
    ["the project's file", ["project"], ["user-guard"]],
    ["the local file (a cloned repository can carry it)", ["local"], ["user-guard"]],
    ["both project files", ["project", "local"], ["user-guard"]],
    ["the user's own file", ["user"], []],
    ["the user's and the project's", ["user", "project"], []],
  ])("set in %s", (_, off, kept) => {
    expect(running(off)).toEqual(kept);
  });

  it("property: the user's hooks run unless the user's own file turns hooks off", () => {
    const file = fc.constantFrom<File>("user", "project", "local");
    fc.assert(
      fc.property(fc.uniqueArray(file, { maxLength: 3 }), (off) => {
        const kept = running(off);
        expect(kept.includes("user-guard")).toBe(!off.includes("user"));
        expect(kept.includes("project-guard")).toBe(off.length === 0);
      }),
      { numRuns: 40 },
    );
  });
});
