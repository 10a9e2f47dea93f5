import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

/** Builds dist/ once, as `npm run build` does, so the end-to-end tests run the CLI a user installs. */
export default function setup(): void {
  const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: REPO_ROOT, stdio: "inherit" });
  for (const script of ["scripts/build-validators.mjs", "scripts/bundle.mjs"]) {
    execFileSync(process.execPath, [path.join(REPO_ROOT, script)], { cwd: REPO_ROOT, stdio: "ignore" });
  }
}
