import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./fixtures.js";

interface BuildStamp {
  buildDigest(): string;
  STAMP: string;
}

function stampOf(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Builds dist/ as `npm run build` does, so the end-to-end tests run the CLI a user installs; skipped
 * when dist/ was built from exactly these sources (a clean install's `prepare` has just built it).
 */
export default async function setup(): Promise<void> {
  const { buildDigest, STAMP } = (await import(
    path.join(REPO_ROOT, "scripts/build-stamp.mjs")
  )) as BuildStamp;
  const digest = buildDigest();
  if (stampOf(STAMP) === digest) return;
  const tsc = path.join(REPO_ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: REPO_ROOT, stdio: "inherit" });
  for (const script of ["scripts/build-validators.mjs", "scripts/bundle.mjs"]) {
    execFileSync(process.execPath, [path.join(REPO_ROOT, script)], { cwd: REPO_ROOT, stdio: "ignore" });
  }
  writeFileSync(STAMP, `${digest}\n`);
}
