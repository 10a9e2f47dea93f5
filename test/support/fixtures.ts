import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "../../src/definitions/types.js";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const FIXTURES = path.join(REPO_ROOT, "test/fixtures/definitions");

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

/** `agents/x.md:3:1 error misspelled-list-key`, relative to `root`: compact enough for tables. */
export function brief(d: Diagnostic, root: string): string {
  return `${path.relative(root, d.file)}:${d.line}:${d.column} ${d.severity} ${d.code}`;
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "agentmd-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
