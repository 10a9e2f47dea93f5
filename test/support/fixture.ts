import path from "node:path";
import { test as base } from "vitest";
import { type CliRun, runBinAsync, runCli } from "./cli.js";
import { type FakeAnthropic, startFakeAnthropic } from "./fake-anthropic.js";
import { tempDir } from "./fixtures.js";
import { writeFiles } from "./tools.js";

/** How `cli` may differ from a plain run in `dir`: `env` is added to the fixture's. */
export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly onStart?: (child: import("node:child_process").ChildProcess) => void;
  readonly launcher?: boolean;
  readonly entry?: string;
}

export interface Fixtures {
  /** A fresh temporary project folder, removed after the test. */
  readonly dir: string;
  /** A fake Anthropic server, started with an empty script (`fake.push(...)` adds steps), closed after. */
  readonly fake: FakeAnthropic;
  /**
   * The environment a CLI run gets: a key, the fake server's URL, a HOME inside `dir` (so no
   * user-level definition of the machine leaks in) and PATH.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Writes `files` (paths relative to `dir`) into `dir` and returns `dir`: a project in one line. */
  readonly project: (files: Record<string, string | Buffer>) => string;
  /** Runs the built CLI in `dir` with `env`, as a separate process (a user's run). */
  readonly cli: (args: readonly string[], options?: CliOptions) => Promise<CliRun>;
  /**
   * The same command through the CLI's main() in this process (no start-up): for the rows of a
   * table whose front door, the built CLI, another test of the file crosses with `cli`.
   */
  readonly main: (
    args: readonly string[],
    options?: { cwd?: string; env?: Readonly<Record<string, string>> },
  ) => Promise<CliRun>;
}

/**
 * The test every end-to-end file shares. Fixtures are lazy: a test that names only `dir` starts
 * no server. Contract: whatever a fixture set up is undone after the test, pass or fail.
 */
export const test = base.extend<Fixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  dir: async ({}, use) => {
    const { dir, cleanup } = tempDir();
    try {
      await use(dir);
    } finally {
      cleanup();
    }
  },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  fake: async ({}, use) => {
    const fake = await startFakeAnthropic([]);
    try {
      await use(fake);
    } finally {
      await fake.close();
    }
  },
  env: async ({ dir, fake }, use) => {
    await use({
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: fake.url,
      HOME: path.join(dir, "home"),
      PATH: process.env.PATH ?? "",
    });
  },
  project: async ({ dir }, use) => {
    await use((files) => {
      writeFiles(dir, files);
      return dir;
    });
  },
  cli: async ({ dir, env }, use) => {
    await use((args, options = {}) =>
      runBinAsync([...args], {
        ...options,
        cwd: options.cwd ?? dir,
        env: { ...env, ...options.env },
      }),
    );
  },
  main: async ({ dir, env }, use) => {
    await use((args, options = {}) =>
      runCli([...args], { cwd: options.cwd ?? dir, env: { ...env, ...options.env } }),
    );
  },
});

export const it = test;
