import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";
import { until } from "./until.js";

/**
 * Whether tmux is on this machine. Without it the real-terminal tests are skipped with a loud
 * warning, except in CI (`CI` set), where they run and fail: .ci/run installs tmux.
 */
export const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
export const runTmuxTests = hasTmux || Boolean(process.env.CI);
if (!runTmuxTests)
  console.warn(
    "\n!!! TMUX TESTS SKIPPED: tmux is not installed.\n!!! They run (and must pass) in CI, where .ci/run installs tmux.\n",
  );

/** A terminal of its own (a tmux server on a private socket) running one command. */
export interface Pane {
  /** What the screen shows now, one string per row, trailing blanks cut; `escapes`: with colours (`-e`). */
  screen(escapes?: boolean): string;
  /** Keys as tmux names them (`Enter`, `C-c`, `Down`), or literal text with `literal`. */
  keys(keys: readonly string[], literal?: boolean): void;
  /** Waits until the screen satisfies `test` (polling it), and returns that screen. */
  until(test: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Whether the command is still running. */
  alive(): boolean;
  /** Ends the terminal and the command. */
  close(): void;
}

let count = 0;

/** Starts `agentmd ARGS` in a 120×40 terminal (tmux `new-session -d -x 120 -y 40`), in `cwd`. */
export function agentmdInTmux(
  cwd: string,
  env: Record<string, string>,
  args: readonly string[] = ["chat"],
  size: { readonly columns: number; readonly rows: number } = { columns: 120, rows: 40 },
): Pane {
  const socket = `agentmd-test-${process.pid}-${++count}`;
  const tmux = (...a: string[]) => execFileSync("tmux", ["-L", socket, ...a], { encoding: "utf8" });
  const vars = { PATH: process.env.PATH ?? "", TERM: "xterm-256color", LANG: "C.UTF-8", ...env };
  const command = [process.execPath, path.join(REPO_ROOT, "bin/agentmd.js"), ...args].map(quote).join(" ");
  // The command's environment is given on its own line (env -i): nothing of the test runner's leaks in.
  const line = `env -i ${Object.entries(vars)
    .map(([k, v]) => quote(`${k}=${v}`))
    .join(" ")} ${command}`;
  execFileSync(
    "tmux",
    [
      "-L",
      socket,
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-x",
      String(size.columns),
      "-y",
      String(size.rows),
      "-c",
      cwd,
      line,
      // The pane stays after the command ends, so that its last screen can still be read.
      ";",
      "set-option",
      "-g",
      "remain-on-exit",
      "on",
    ],
    { env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color" } },
  );
  const screen = (escapes = false) =>
    tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", "0")
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n")
      .trimEnd();
  return {
    screen,
    keys: (keys, literal = false) => {
      tmux("send-keys", "-t", "0", ...(literal ? ["-l"] : []), ...keys);
    },
    until: async (test, what, timeoutMs = 20_000) => {
      let last = "";
      try {
        const look = () => {
          last = screen();
          return test(last) ? last : undefined;
        };
        return await until(look, { what, timeoutMs });
      } catch (e) {
        throw new Error(`${(e as Error).message}; the screen:\n${last}`);
      }
    },
    alive: () => tmux("display-message", "-p", "-t", "0", "#{pane_dead}").trim() === "0",
    close: () => {
      spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
    },
  };
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
