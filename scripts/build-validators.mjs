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

// The schema gates of agentmd's own tools (src/tools/schema-gate.ts), by the text of the schema
// each judges, so that a run's first call of a tool neither loads ajv nor compiles its schema.
const { createBuiltinTools } = await import("../dist/tools/builtin/index.js");
const { gateKey, GATE_AJV_OPTIONS } = await import("../dist/tools/schema-gate.js");
const gateAjv = new Ajv({ ...GATE_AJV_OPTIONS, code: { source: true } });
const keys = [...new Set(createBuiltinTools().map((tool) => gateKey(tool)))];
const names = {};
keys.forEach((key, i) => {
  gateAjv.addSchema(JSON.parse(key), `gate${i}`);
  names[`gate${i}`] = `gate${i}`;
});
const byShape = keys.map((key, i) => `${JSON.stringify(key)}: exports.gate${i}`).join(",\n");
const gateCode = `${standaloneCode(gateAjv, names).replaceAll(ucs2length.code, `(${ucs2length.toString()})`)}
exports.byShape = {\n${byShape}\n};\n`;
const gateNeeds = /require\([^)]*\)/.exec(gateCode);
if (gateNeeds) throw new Error(`build-validators: the precompiled tool gates still ${gateNeeds[0]}`);
writeFileSync(fileURLToPath(new URL("../dist/tools/gate-validators.cjs", import.meta.url)), gateCode);
console.log(`precompiled ${keys.length} tool input gates`);
