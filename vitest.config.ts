import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Most tests wait on processes they start (the CLI, MCP servers, Redis): two test files at a
    // time keep both cores busy, where vitest's default on two cores (one) leaves one idle.
    maxWorkers: 2,
  },
});
