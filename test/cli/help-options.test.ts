import os from "node:os";
import { describe, expect, it } from "vitest";
import { AUDIT_OPTIONS } from "../../src/cli/commands/audit-command.js";
import { AUTH_OPTIONS } from "../../src/cli/commands/auth-command.js";
import { BATCH_OPTIONS } from "../../src/cli/commands/batch-command.js";
import { CHECK_OPTIONS } from "../../src/cli/commands/check-command.js";
import { ENQUEUE_OPTIONS } from "../../src/cli/commands/enqueue-command.js";
import { INIT_OPTIONS } from "../../src/cli/commands/init-command.js";
import { MCP_OPTIONS } from "../../src/cli/commands/mcp-command.js";
import { PLUGIN_OPTIONS } from "../../src/cli/commands/plugin-command.js";
import { REWIND_OPTIONS } from "../../src/cli/commands/rewind-command.js";
import { SESSIONS_OPTIONS } from "../../src/cli/commands/sessions-command.js";
import { TOOLS_OPTIONS } from "../../src/cli/commands/tools-command.js";
import { TRUST_OPTIONS } from "../../src/cli/commands/trust-command.js";
import { VIEW_OPTIONS } from "../../src/cli/commands/view-command.js";
import { WORKER_OPTIONS } from "../../src/cli/commands/worker-command.js";
import type { OptionDecl, OptionTable } from "../../src/cli/flags/option-table.js";
import { ACP_FLAGS, RUN_FLAGS, SESSION_FLAGS } from "../../src/cli/flags/session-flags.js";
import { runCli } from "../support/cli.js";

const cwd = os.tmpdir();

/** Every command, as typed, with the table its parser and its help are made from. */
const COMMANDS: readonly [readonly string[], OptionTable][] = [
  [["run"], RUN_FLAGS],
  [["-p"], RUN_FLAGS],
  [["chat"], SESSION_FLAGS],
  [["acp"], ACP_FLAGS],
  [["check"], CHECK_OPTIONS],
  [["tools"], TOOLS_OPTIONS],
  [["audit"], AUDIT_OPTIONS],
  [["trust"], TRUST_OPTIONS],
  [["mcp"], MCP_OPTIONS],
  [["plugin"], PLUGIN_OPTIONS],
  [["sessions"], SESSIONS_OPTIONS],
  [["rewind"], REWIND_OPTIONS],
  [["init"], INIT_OPTIONS],
  [["batch"], BATCH_OPTIONS],
  [["enqueue"], ENQUEUE_OPTIONS],
  [["worker"], WORKER_OPTIONS],
  [["view"], VIEW_OPTIONS],
  [["auth"], AUTH_OPTIONS],
];

const label = (name: string, o: OptionDecl) =>
  `${o.short ? `-${o.short}, ` : ""}--${name}${o.value ? ` ${o.value}` : ""}`;

/** The options a help lists: its lines that start (indented two) with an option. */
function listed(help: string): { flag: string; short?: string }[] {
  return [...help.matchAll(/^ {2}(?:-(\w), )?--([A-Za-z][\w-]*)/gm)].map((m) => ({
    flag: m[2] ?? "",
    ...(m[1] && { short: m[1] }),
  }));
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether the command's parser takes the option: given it and --help, nothing says it is unknown. */
async function accepted(
  command: readonly string[],
  option: string,
  o: OptionDecl | undefined,
): Promise<boolean> {
  const value = o?.type === "string" ? ["1"] : [];
  const r = await runCli([...command, option, ...value, "--help"], { cwd });
  return !r.stderr.includes("unknown option") && (r.code === 0 || r.code === 2);
}

describe("every command's --help and its parser come from one table", () => {
  it.each(COMMANDS)(
    "%j: each option it takes is in its --help, each one listed is taken",
    async (command, table) => {
      const help = await runCli([...command, "--help"], { cwd });
      expect(help.code).toBe(0);
      const text = help.stdout;
      for (const [name, o] of Object.entries(table)) {
        if (o.aliasOf === undefined)
          expect(text).toMatch(new RegExp(`^ {2}${literal(label(name, o))}( |$)`, "m"));
        else expect(text).toContain(`--${name}`);
        expect([name, await accepted(command, `--${name}`, o)]).toEqual([name, true]);
      }
      const shown = listed(text);
      expect(shown.length).toBeGreaterThan(0);
      for (const { flag, short } of shown) {
        expect([flag, flag in table, await accepted(command, `--${flag}`, table[flag])]).toEqual([
          flag,
          true,
          true,
        ]);
        if (short) expect([short, await accepted(command, `-${short}`, table[flag])]).toEqual([short, true]);
      }
    },
  );

  it("an option no table has is refused, naming the nearest one", async () => {
    for (const [command, table] of COMMANDS) {
      const r = await runCli([...command, "--no-such-option"], { cwd });
      expect([command, r.code, r.stderr.split("\n")[0]]).toEqual([
        command,
        2,
        expect.stringMatching(/^agentmd: unknown option '--no-such-option'/),
      ]);
      expect("no-such-option" in table).toBe(false);
    }
  });

  it("--version after a command word says where it goes, never 'did you mean' itself", async () => {
    for (const [command, table] of COMMANDS) {
      if ("version" in table) continue;
      const r = await runCli([...command, "--version"], { cwd });
      expect([command, r.code, r.stderr.split("\n")[0]]).toEqual([
        command,
        2,
        "agentmd: '--version' is not an option of this command; for agentmd's own: agentmd --version",
      ]);
    }
  });
});

describe("batch --help", () => {
  it("puts each option's description lines directly under it, at one column", async () => {
    const r = await runCli(["batch", "--help"], { cwd });
    const lines = r.stdout.split("\n");
    const start = lines.indexOf("Options:") + 1;
    const end = lines.indexOf("", start);
    const block = lines.slice(start, end);
    const expected = Object.entries(BATCH_OPTIONS).flatMap(([name, o]: [string, OptionDecl]) => {
      if (o.aliasOf !== undefined) return [];
      const text = typeof o.help === "string" ? [o.help] : [...(o.help ?? [])];
      const head = `  ${label(name, o)}`;
      return head.length + 2 <= 20
        ? [`${head.padEnd(20)}${text[0]}`, ...text.slice(1).map((l) => `${" ".repeat(20)}${l}`)]
        : [head, ...text.map((l) => `${" ".repeat(20)}${l}`)];
    });
    expect(block).toEqual(expected);
    for (const line of block) expect(line).toMatch(/^( {2}-| {20}\S)/);
    // The lines of --max-budget-usd, then --effort's: nothing of one among the other's.
    expect(r.stdout).toContain(
      [
        "  --max-budget-usd N",
        "                    US dollars all the batch's runs may spend together (with --redis:",
        "                    this run of it; each 'batch --redis' is a new run, --resume RUN goes",
        "                    on with the run id it said and what it spent): once reached,",
        "                    no run sends another request (each ends error_max_budget_usd); with",
        "                    --redis, kept in Redis for the runs on every worker",
        "  --effort LEVEL    every run's effort (low … max), over agent.md's; an item's agent (or",
      ].join("\n"),
    );
  });
});
