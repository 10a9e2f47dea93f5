import { statSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { findProjectRoot } from "../../definitions/discover.js";
import { WriteError } from "../../shared/errors.js";
import { changeLines, codeLines } from "../../trust/describe-trust.js";
import { projectInventory } from "../../trust/inventory/inventory.js";
import { type TrustState, trustState } from "../../trust/trust-state.js";
import { readTrust, recordTrust, revokeTrust, trustFile, trustFolders } from "../../trust/trust-store.js";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import { pageLines } from "../terminal/page-lines.js";
import { printable } from "../terminal/printable.js";
import { trustHome } from "./project-trust.js";
import type { RunIo } from "./run-command.js";

/** `trust`'s options: its parser and its help's Options lines. */
export const TRUST_OPTIONS = {
  yes: {
    type: "boolean",
    short: "y",
    default: false,
    help: "trust the code without asking (for CI, after reviewing it)",
  },
  list: {
    type: "boolean",
    default: false,
    help: "list the trusted folders, and those whose code changed since",
  },
  revoke: { type: "boolean", default: false, help: "remove the folder's trust" },
  json: {
    type: "boolean",
    default: false,
    help: "the state and every item as JSON (nothing is asked; with --yes, trusts it)",
  },
  ...HELP_OPTION,
} as const satisfies OptionTable;

export const TRUST_HELP = `Usage: agentmd trust [DIR] [--yes | --list | --revoke] [--json]

Lists the code the project's files would have agentmd run — each hook's command, each MCP
server's command line (or url) and env keys, each custom tool module, and every file these
run, source, import or require (package scripts and makefiles too), the project's plugin
folders, git's hooks and the commands its config names, the settings' env keys, agent.md's
baseUrl, and what could not be followed — and asks whether to trust it. Every item is
listed, a page at a time on a terminal. Until a
folder is trusted, run, -p, batch and worker run it restricted: none of that code runs, and
every list, deny and ask still binds (chat asks at its start). Trust is kept for the code as
it is now, in ~/.agentmd/trust.json: when it changes (a pull brings a new hook), the folder
runs restricted again until it is trusted again. A project of only markdown and lists needs
no trust. See docs/trust.md.

Options:
${optionsHelp(TRUST_OPTIONS, 14)}
  DIR         the folder the project is found from (default: the current folder)`;

export interface TrustOptions {
  readonly path?: string;
  readonly yes: boolean;
  readonly list: boolean;
  readonly revoke: boolean;
  readonly json?: boolean;
}

/** Runs `agentmd trust`; returns the exit code (1: not trusted, or it could not be recorded). */
export async function runTrust(options: TrustOptions, io: RunIo): Promise<number> {
  try {
    return await trustCommand(options, io);
  } catch (e) {
    // The trust file could not be read back or written (a hand edit, a full disk): it is unchanged.
    if (!(e instanceof WriteError)) throw e;
    io.stderr.write(`agentmd trust: ${printable(e.message)}\n`);
    return 1;
  }
}

async function trustCommand(options: TrustOptions, io: RunIo): Promise<number> {
  const home = trustHome(io);
  if (options.list) return listTrusted(home, io);
  const start = path.resolve(io.cwd, options.path ?? ".");
  if (!isFolder(start)) {
    io.stderr.write(`agentmd trust: ${printable(options.path ?? start, false)} is not a folder\n`);
    return 2;
  }
  const root = findProjectRoot(start, io.env.HOME);
  if (options.revoke) {
    const dir = projectInventory(root, home).dir;
    const had = revokeTrust(home, dir);
    io.stdout.write(`${printable(dir)}: ${had ? "trust removed" : "was not trusted"}\n`);
    return 0;
  }
  const state = trustState(root, home);
  const tty = io.stdin?.isTTY === true && io.stdout.isTTY === true;
  if (options.json) io.stdout.write(`${JSON.stringify(stateJson(state), null, 2)}\n`);
  else await pageLines(describeState(state).split("\n"), io.stdout, tty ? (q) => askLine(io, q) : undefined);
  if (state.kind !== "untrusted") return 0;
  if (!options.yes) {
    if (!tty || options.json) {
      io.stderr.write("agentmd trust: not asked (no terminal); pass --yes to trust this code\n");
      return 1;
    }
    const answer = await askLine(io, "Trust this folder and run its code? [y/N] ");
    if (!/^\s*(y|yes)\s*$/i.test(answer ?? "")) {
      io.stdout.write("not trusted: the folder runs restricted\n");
      return 1;
    }
  }
  recordTrust(home, state.code);
  const done = `trusted: ${printable(state.code.dir)} (kept in ${printable(trustFile(home))})\n`;
  (options.json ? io.stderr : io.stdout).write(done);
  return 0;
}

/** `--json`: the folder's state, every item, what was not followed, and what changed since it was trusted. */
function stateJson(state: TrustState) {
  const changes = state.kind === "untrusted" ? state.changes : undefined;
  return {
    dir: state.code.dir,
    state: state.kind === "untrusted" && changes ? "changed" : state.kind,
    digest: state.code.digest,
    items: state.code.items.map(({ kind, text, file }) => ({ kind, text, file })),
    notFollowed: state.code.notFollowed,
    ...(changes && {
      changes: {
        added: changes.added.map((i) => i.text),
        changed: changes.changed.map((i) => i.text),
        removed: changes.removed.map((i) => i.text),
      },
    }),
  };
}

function describeState(state: TrustState): string {
  const dir = printable(state.code.dir);
  if (state.kind === "none")
    return `${dir} holds no repository code (only markdown and lists): it needs no trust`;
  const listing = printable(codeLines(state.code.items).join("\n"));
  if (state.kind === "trusted") return `${dir} is trusted, with this code:\n${listing}`;
  if (!state.changes) return `${dir} is not trusted. Its files hold this code:\n${listing}`;
  return `${dir} was trusted, and its code changed since:\n${printable(changeLines(state.changes).join("\n"))}\nIts code now:\n${listing}`;
}

function listTrusted(home: string, io: RunIo): number {
  trustFolders(trustFile(home));
  const folders = Object.entries(readTrust(home).folders);
  if (folders.length === 0) io.stdout.write("no folder is trusted\n");
  for (const [dir, entry] of folders.sort(([a], [b]) => (a < b ? -1 : 1))) {
    const now = isFolder(dir) ? projectInventory(dir, home).digest : undefined;
    const note =
      now === undefined ? "; the folder is gone" : now !== entry.digest ? "; its code changed since" : "";
    io.stdout.write(`${printable(dir)}  (trusted ${entry.trustedAt.slice(0, 10)}${note})\n`);
  }
  return 0;
}

/** One line from the terminal; undefined when the input ends first. */
function askLine(io: RunIo, question: string): Promise<string | undefined> {
  const rl = createInterface({
    input: (io.stdin ?? process.stdin) as NodeJS.ReadableStream,
    output: io.stdout as NodeJS.WritableStream,
    terminal: true,
  });
  return new Promise((resolve) => {
    let answered = false;
    rl.on("close", () => {
      if (!answered) resolve(undefined);
    });
    rl.question(question, (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
  });
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
