// The digest of everything dist/ is built from. `npm run build` writes it to dist/.build-stamp when
// done; the test setup compares it and builds again only when a source changed, so a clean
// install (whose `prepare` just built) does not build twice before its tests.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const INPUTS = [
  "src",
  "scripts/build-validators.mjs",
  "scripts/bundle.mjs",
  "scripts/bundle-types.mjs",
  "scripts/check-bundle.mjs",
  "scripts/bundle-external.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package-lock.json",
];

function files(rel) {
  const abs = path.join(root, rel);
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return [rel];
  }
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? files(path.join(rel, e.name)) : [path.join(rel, e.name)]));
}

/** The digest of the build's inputs, as text. */
export function buildDigest() {
  const hash = createHash("sha256");
  for (const rel of INPUTS.flatMap(files)) {
    hash.update(`${rel}\0`);
    try {
      hash.update(readFileSync(path.join(root, rel)));
    } catch {
      hash.update("missing");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

export const STAMP = path.join(root, "dist/.build-stamp");

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(STAMP, `${buildDigest()}\n`);
