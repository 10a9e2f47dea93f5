// bench/install-size: what `npm install -g` of the package's tarball puts on a user's disk, against
// the floor of what the CLI runs from (dist/bundle, measured in the same run). The tarball is made
// with `npm pack` from the built tree and installed into a temporary prefix, from npm's cache when
// it has the packages (--prefer-offline). Target: <= 40 MB installed.
import { spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fmt, REPO_ROOT } from "./support.js";

const TARGET_MB = 40;
const MB = 1024 * 1024;

/** Bytes of the files under `dir` (links not followed), and the packages (folders with a package.json). */
function sizeOf(dir) {
  let bytes = 0;
  let packages = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        bytes += lstatSync(p).size;
        if (
          e.name === "package.json" &&
          path.basename(path.dirname(path.dirname(p))).endsWith("node_modules")
        )
          packages++;
        else if (
          e.name === "package.json" &&
          path.basename(path.dirname(path.dirname(path.dirname(p)))).endsWith("node_modules") &&
          path.basename(path.dirname(path.dirname(p))).startsWith("@")
        )
          packages++;
      }
    }
  };
  walk(dir);
  return { bytes, packages };
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const dir = mkdtempSync(path.join(tmpdir(), "agentmd-bench-install-"));
try {
  // The tree is built (`npm run bench` builds first): no prepare script on pack.
  const packed = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], REPO_ROOT),
  );
  const tarball = path.join(dir, packed[0].filename);
  const tarMb = lstatSync(tarball).size / MB;
  const floor = sizeOf(path.join(REPO_ROOT, "dist/bundle")).bytes;
  console.log(
    "bench/install-size — npm install -g of the package's tarball, against the bundle the CLI runs from",
  );
  console.log(`  tarball ${fmt(tarMb, 1)} MB; floor: dist/bundle ${fmt(floor / MB, 1)} MB`);
  const prefix = path.join(dir, "prefix");
  run(
    "npm",
    [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
    ],
    dir,
  );
  const installed = path.join(prefix, "lib/node_modules/agentmd-cli");
  const total = sizeOf(installed);
  const own = total.bytes - (safeSize(path.join(installed, "node_modules")) ?? 0);
  // OpenTelemetry's SDK and exporters are bundled (a chunk loaded only when tracing is on): nothing
  // of it should be installed; measured so that a return of the packages shows.
  const otel = safeSize(path.join(installed, "node_modules/@opentelemetry")) ?? 0;
  const version = spawnSync(path.join(prefix, "bin/agentmd"), ["--version"], { encoding: "utf8" });
  const library = spawnSync(
    process.execPath,
    ["-e", "import('agentmd-cli').then((m) => console.log(typeof m.createRunner))"],
    {
      cwd: path.join(prefix, "lib"),
      encoding: "utf8",
    },
  );
  const works =
    version.status === 0 && version.stdout.includes("agentmd-cli") && library.stdout.trim() === "function";
  const mb = total.bytes / MB;
  console.log(
    `  installed ${fmt(mb, 1)} MB in ${total.packages} packages besides agentmd-cli (its own files ${fmt(own / MB, 1)} MB; OpenTelemetry's packages ${fmt(otel / MB, 1)} MB), ${fmt(total.bytes / floor, 1)}x the bundle`,
  );
  console.log(
    `  the installed agentmd --version and import('agentmd-cli') ${works ? "work" : `FAILED: ${version.stderr}${library.stderr}`}`,
  );
  console.log(
    `RESULT install-size installed_mb=${fmt(mb, 1)} target<=${TARGET_MB} without_optional_otel_mb=${fmt((total.bytes - otel) / MB, 1)} bundle_mb=${fmt(floor / MB, 1)} ratio=${fmt(total.bytes / floor, 1)} runs=${works}${mb > TARGET_MB ? " missed=installed_mb" : ""}`,
  );
  if (!works) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function safeSize(d) {
  try {
    return sizeOf(d).bytes;
  } catch {
    return undefined;
  }
}
