import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // A guard against a hang, never a measure: a test that starts several CLI processes takes 15-20 s
    // when two suites share the two cores (it timed out at 20 s so), and the guard must not fail it.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most tests wait on processes they start (the CLI, MCP servers, Redis) and some on a server's
    // time-out: three test files at a time keep both cores busy through those waits (a fresh clone's
    // suite: 275 s against 306 s with two, under the same load), where vitest's default on two cores
    // (one) leaves one idle.
    maxWorkers: 3,
    // Each worker imports the sources (the SDKs, MCP, tree-sitter's grammar) once for all the
    // files it runs, instead of once per file: importing them per file cost about 30% of the
    // suite's CPU.
    // No test may leave state behind: one that changes process.env, the timers or the working
    // folder puts them back in its afterEach.
    isolate: false,
  },
});
