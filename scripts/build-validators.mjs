// Precompiles the per-surface JSON Schema validators (ajv standalone code) into dist/, so that
// `agentmd check` does not compile them at every start. The loader falls back to compiling them
// when this file is missing (as in the test suite, which runs the TypeScript sources).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { default: Ajv } = require("ajv");
const { default: standaloneCode } = require("ajv/dist/standalone");
const { CHECKED_SCHEMAS } = await import("../dist/definitions/surface-schemas.js");
const { AJV_OPTIONS } = await import("../dist/definitions/check-fields.js");

const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true } });
const refs = {};
for (const [surface, schema] of Object.entries(CHECKED_SCHEMAS)) {
  ajv.addSchema(schema, surface);
  refs[surface] = surface;
}
const out = fileURLToPath(new URL("../dist/definitions/surface-validators.cjs", import.meta.url));
// The code ajv writes requires its runtime helpers from the ajv package; they are written into the
// file instead, so that it loads nothing else and needs no ajv where agentmd is installed.
const ucs2length = require("ajv/dist/runtime/ucs2length").default;
const code = standaloneCode(ajv, refs).replaceAll(ucs2length.code, `(${ucs2length.toString()})`);
const needs = /require\([^)]*\)/.exec(code);
if (needs) throw new Error(`build-validators: the precompiled validators still ${needs[0]}`);
writeFileSync(out, code);
console.log(`precompiled ${Object.keys(refs).length} surface validators`);
