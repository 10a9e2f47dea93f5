import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

/** Builds dist/ once, so the end-to-end tests run the CLI exactly as a user's install would. */
export default function setup(): void {
  execFileSync(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: REPO_ROOT,
      stdio: "inherit",
    },
  );
}
