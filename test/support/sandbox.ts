import { probeSandbox, type SandboxSupport } from "../../src/sandbox/probe-sandbox.js";

/**
 * Whether bubblewrap works on this machine. Without it the sandbox tests are skipped with a loud
 * warning, except in CI (`CI` set), where they run and fail: CI installs bubblewrap (.ci/run).
 */
export const sandboxSupport: SandboxSupport = await probeSandbox(process.env);

export const runSandboxTests = sandboxSupport.ok || Boolean(process.env.CI);

if (!runSandboxTests && !sandboxSupport.ok) {
  console.warn(
    `\n!!! SANDBOX TESTS SKIPPED: ${sandboxSupport.message}.\n!!! They run (and must pass) in CI, where .ci/run installs bubblewrap.\n`,
  );
}
