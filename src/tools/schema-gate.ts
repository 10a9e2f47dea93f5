import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { newAjv } from "../shared/ajv.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { setOwn } from "../shared/own.js";
import type { Logger, SchemaValidationMode, Tool } from "./types.js";

/**
 * The schema gate stands before `execute`. It checks shape — required (JSON null counts as
 * missing), type (an integer accepts 3.0, not 3.5), enum, unknown names where the schema says
 * `additionalProperties: false`, nested objects and arrays — and reports every violation at once,
 * in one sentence. Ranges (minimum, maxLength, …) are the tool's: some tools clamp them.
 */
export type GateResult =
  | { readonly ok: true; readonly input: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly message: string };

const RANGE_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
]);

/** Compiled validators by tool; `null` for a schema that does not compile (passes unvalidated). */
const compiled = new WeakMap<Tool, { validate: ValidateFunction | null; problem?: string }>();
let ajv: Ajv | undefined;

/** How the gate's validators are compiled, at run time and at build time alike. */
export const GATE_AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  verbose: true,
  validateSchema: false,
} as const;

/** Validators by schema text: tools made per run (Task, Skill) share one compiled gate. */
const bySchema = new Map<string, { validate: ValidateFunction | null; problem?: string }>();

/**
 * The gates of agentmd's own tools, precompiled at build time (scripts/build-validators.mjs) by
 * the text of the schema they judge, when that file is there: a run's first call of a tool then
 * neither loads ajv nor compiles. A schema it does not hold is compiled as before.
 */
let precompiled: Readonly<Record<string, ValidateFunction>> | null | undefined;

function precompiledGate(key: string): { validate: ValidateFunction } | undefined {
  if (precompiled === undefined) {
    try {
      precompiled = (
        createRequire(import.meta.url)("./gate-validators.cjs") as { byShape: typeof precompiled }
      ).byShape;
    } catch {
      precompiled = null;
    }
  }
  const validate = precompiled && Object.hasOwn(precompiled, key) ? precompiled[key] : undefined;
  return validate ? { validate } : undefined;
}

/** The schema text a tool's gate is kept by: its input schema without range keywords. */
export function gateKey(tool: Tool): string {
  return JSON.stringify(shapeOnly(tool.inputSchema));
}

/** Compiles a tool's gate once (once per distinct schema). Returns why it could not be compiled, if it could not. */
export function prepareGate(tool: Tool): string | undefined {
  let entry = compiled.get(tool);
  if (!entry) {
    const shape = shapeOnly(tool.inputSchema) as object;
    const key = tool.ownsSchema ? JSON.stringify(shape) : undefined;
    entry = key === undefined ? undefined : (bySchema.get(key) ?? precompiledGate(key));
    if (!entry) {
      ajv ??= newAjv(GATE_AJV_OPTIONS);
      try {
        entry = { validate: ajv.compile(shape) };
      } catch (e) {
        entry = { validate: null, problem: (e as Error).message };
      }
      if (key !== undefined && bySchema.size < 256) bySchema.set(key, entry);
    }
    compiled.set(tool, entry);
  }
  return entry.problem;
}

/** The validator the gate runs for a tool (for benchmarks and tests); null when it has none. */
export function gateValidator(tool: Tool): ValidateFunction | null {
  prepareGate(tool);
  return compiled.get(tool)?.validate ?? null;
}

/** A copy of a schema without range keywords, so that the gate judges shape only. */
function shapeOnly(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shapeOnly);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (RANGE_KEYWORDS.has(k) && typeof v !== "object") continue;
    setOwn(
      out,
      k,
      k === "properties" || k === "$defs" || k === "definitions" ? mapValues(v, shapeOnly) : shapeOnly(v),
    );
  }
  return out;
}

function mapValues(v: unknown, f: (x: unknown) => unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, f(x)]));
}

/** Runs the gate for one call. `input` is already normalised (a prototype-less object tree). */
export function checkInput(
  tool: Tool,
  input: Readonly<Record<string, unknown>>,
  mode: SchemaValidationMode,
  logger?: Logger,
): GateResult {
  if (mode === "off") return { ok: true, input };
  let entry = compiled.get(tool);
  if (!entry) {
    prepareGate(tool);
    entry = compiled.get(tool);
  }
  const validate = entry?.validate;
  if (!validate || validate(input)) return { ok: true, input };
  const cleaned = withoutNulls(input) as Record<string, unknown>;
  if (cleaned !== input && validate(cleaned)) return { ok: true, input: cleaned };
  const problems = describeErrors(validate.errors ?? []);
  const message = `Invalid input for ${tool.name}: ${problems}${problems.endsWith("?") ? "" : "."} The tool was not executed.`;
  if (mode === "warn") {
    logger?.warn(`${message} (schemaValidation: warn, so it runs anyway)`);
    return { ok: true, input: cleaned };
  }
  return { ok: false, message };
}

/** JSON null counts as missing: the same tree without null-valued properties (same object if none). */
function withoutNulls(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = withoutNulls(v);
      if (c !== v) changed = true;
      return c;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v === null) {
      changed = true;
      continue;
    }
    const c = withoutNulls(v);
    if (c !== v) changed = true;
    setOwn(out, key, c);
  }
  return changed ? out : value;
}

const label = (path: string, key?: string) => {
  const parts = path
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (key !== undefined) parts.push(key);
  return parts.join(".");
};

function got(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 37)}...` : value}" (text)`;
  return String(value);
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

/** Every violation, in one sentence: `unknown parameter 'file_paht' — did you mean 'file_path'?; …` */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const inCombinator = (e: ErrorObject) =>
    combinators.some(
      (c) =>
        c !== e &&
        e.schemaPath.startsWith(c.schemaPath.replace(/\/(anyOf|oneOf)$/, "")) &&
        /\/(anyOf|oneOf)\//.test(e.schemaPath),
    );
  const parts: string[] = [];
  const suggested = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== "additionalProperties") continue;
    const extra = String(e.params.additionalProperty);
    const props = Object.keys((e.parentSchema?.properties as object | undefined) ?? {});
    const present = e.data && typeof e.data === "object" ? Object.keys(e.data) : [];
    const near = didYouMean(
      extra,
      props.filter((p) => !present.includes(p)),
    );
    if (near) suggested.add(label(e.instancePath, near));
    parts.push(
      `unknown parameter '${label(e.instancePath, extra)}'${near ? ` — did you mean '${near}'?` : ""}`,
    );
  }
  for (const e of errors) {
    if (e.keyword === "additionalProperties" || inCombinator(e)) continue;
    const where = label(e.instancePath);
    switch (e.keyword) {
      case "required": {
        const missing = label(e.instancePath, String(e.params.missingProperty));
        if (!suggested.has(missing)) parts.push(`missing required parameter '${missing}'`);
        break;
      }
      case "type":
        parts.push(
          `'${where}' must be ${article(String(e.params.type).replace(",", " or "))}, got ${got(e.data)}`,
        );
        break;
      case "enum": {
        const allowed = (e.params.allowedValues as unknown[]).map(String);
        const near = typeof e.data === "string" ? didYouMean(e.data, allowed) : undefined;
        parts.push(
          `'${where}' must be one of ${allowed.map((v) => `'${v}'`).join(", ")}, got ${got(e.data)}${near ? ` — did you mean '${near}'?` : ""}`,
        );
        break;
      }
      case "anyOf":
      case "oneOf":
        parts.push(`'${where || "input"}' does not match any of the allowed forms`);
        break;
      default:
        parts.push(`'${where || "input"}' ${e.message ?? "is invalid"}`);
    }
  }
  return parts.join("; ");
}
