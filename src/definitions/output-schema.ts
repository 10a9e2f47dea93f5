import type { Ajv, ErrorObject } from "ajv";
import { newAjv } from "../shared/ajv.js";
import type { DiagnosticSink } from "./diagnostics.js";
import type { Field } from "./yaml-fields.js";

/** A JSON Schema a run's answer must match: the input schema of its StructuredOutput tool. */
export type OutputSchema = Readonly<Record<string, unknown>>;

/** One thing wrong with a schema, at its place inside it (`["properties", "n", "type"]`). */
export interface SchemaProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

let ajv: Ajv | undefined;

/**
 * What is wrong with `schema` as an output schema: it must be a JSON Schema (draft-07, as ajv checks
 * it against the meta-schema), compile, and describe an object (`type: object`), since the API takes
 * a tool's input as an object. Empty: it can be used.
 */
export function outputSchemaProblems(schema: unknown): SchemaProblem[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    return [{ path: [], message: "must be a JSON Schema written as a map" }];
  const s = schema as Record<string, unknown>;
  if (s.type !== "object")
    return [
      {
        path: Object.hasOwn(s, "type") ? ["type"] : [],
        message: `must describe an object ('type: object'), got ${s.type === undefined ? "no type" : `type ${JSON.stringify(s.type)}`}`,
      },
    ];
  ajv ??= newAjv({ allErrors: true, strict: false });
  if (!ajv.validateSchema(s)) return (ajv.errors ?? []).filter(meaningful).map(problemOf);
  try {
    ajv.compile(s);
  } catch (e) {
    return [{ path: [], message: `does not compile: ${(e as Error).message}` }];
  }
  return [];
}

/** ajv's anyOf/oneOf wrappers say nothing the errors under them do not. */
const meaningful = (e: ErrorObject) => e.keyword !== "anyOf" && e.keyword !== "oneOf";

function problemOf(e: ErrorObject): SchemaProblem {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const more = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(", ")})` : "";
  return { path, message: `${e.message ?? "is invalid"}${more}` };
}

/** One sentence for a schema's problems, as the command line says them: `'properties.n.type' must be …`. */
export function describeSchemaProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => `${p.path.length ? `'${p.path.join(".")}' ` : ""}${p.message}`).join("; ");
}

/**
 * `outputSchema` of a definition: the schema, or undefined with an error at the place inside it
 * that is wrong (its line and column in the file).
 */
export function readOutputSchemaField(
  field: Field | undefined,
  value: unknown,
  sink: DiagnosticSink,
): OutputSchema | undefined {
  if (!field || value === undefined) return undefined;
  const problems = outputSchemaProblems(value);
  for (const p of problems) {
    const pos = field.locate(p.path);
    const where = p.path.length ? `'outputSchema.${p.path.join(".")}'` : "'outputSchema'";
    sink.add("error", "output-schema", `${where} ${p.message}`, pos.line, pos.column);
  }
  return problems.length === 0 ? (value as OutputSchema) : undefined;
}
