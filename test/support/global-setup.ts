import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { REPO_ROOT } from "./fixtures.js";
import { STDIO_SERVER, STDIO_SERVER_SOURCE } from "./mcp.js";

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
  await bundleStdioServer();
  await buildDist();
}

/**
 * The test MCP server (mcp/stdio-server.mjs and what it imports: the MCP SDK, zod) as one file, as
 * agentmd's own bundle is: the tests start it about a hundred times, and a start that resolves and
 * compiles the SDK's hundreds of modules costs twice the CPU. Written whole, then renamed, so that
 * two suites at once never start a half-written one.
 */
async function bundleStdioServer(): Promise<void> {
  const { outputFiles } = await build({
    entryPoints: [STDIO_SERVER_SOURCE],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: "warning",
  });
  mkdirSync(path.dirname(STDIO_SERVER), { recursive: true });
  const temp = `${STDIO_SERVER}.${process.pid}.tmp`;
  writeFileSync(temp, outputFiles?.[0]?.contents ?? "");
  renameSync(temp, STDIO_SERVER);
}

async function buildDist(): Promise<void> {
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
