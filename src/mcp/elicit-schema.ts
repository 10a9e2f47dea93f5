/**
 * Whether an answer's content fits the form a server asked for: MCP's flat subset of JSON Schema (an
 * object of strings, numbers, integers, booleans, single and multiple choices). Whoever filled it
 * in (the user, the SDK program, a hook), content the form refuses is never sent.
 */

interface Field {
  readonly type?: unknown;
  readonly enum?: unknown;
  readonly oneOf?: unknown;
  readonly items?: { readonly enum?: unknown; readonly anyOf?: unknown };
  readonly minLength?: unknown;
  readonly maxLength?: unknown;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly minItems?: unknown;
  readonly maxItems?: unknown;
  readonly format?: unknown;
}

/** Why `content` does not fit `schema` (every reason, in one sentence); undefined: it fits. */
export function formProblem(
  schema: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, unknown>>,
): string | undefined {
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, Field>) : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
  const problems: string[] = [];
  for (const name of required) if (!Object.hasOwn(content, name)) problems.push(`'${name}' is required`);
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!isRecord(field)) problems.push(`'${name}' is not a field of the form`);
    else {
      const why = fieldProblem(field, value);
      if (why !== undefined) problems.push(`'${name}' ${why}`);
    }
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}

function fieldProblem(f: Field, v: unknown): string | undefined {
  const choices = choicesOf(f.enum, f.oneOf);
  const type = f.type ?? (choices ? "string" : undefined);
  switch (type) {
    case "string":
      if (typeof v !== "string") return "must be text";
      if (choices && !choices.includes(v)) return `must be one of ${choices.join(", ")}`;
      return lengthProblem(f, v.length, "characters") ?? formatProblem(f.format, v);
    case "number":
    case "integer":
      if (typeof v !== "number" || !Number.isFinite(v))
        return `must be ${type === "integer" ? "an integer" : "a number"}`;
      if (type === "integer" && !Number.isInteger(v)) return "must be an integer";
      if (typeof f.minimum === "number" && v < f.minimum) return `must be at least ${f.minimum}`;
      if (typeof f.maximum === "number" && v > f.maximum) return `must be at most ${f.maximum}`;
      return undefined;
    case "boolean":
      return typeof v === "boolean" ? undefined : "must be true or false";
    case "array": {
      const options = choicesOf(f.items?.enum, f.items?.anyOf);
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return "must be a list of choices";
      const other = options ? v.find((x) => !options.includes(x)) : undefined;
      if (options && other !== undefined)
        return `has ${JSON.stringify(other)}, not one of ${options.join(", ")}`;
      return lengthProblem({ minLength: f.minItems, maxLength: f.maxItems }, v.length, "choices");
    }
    default:
      return `is of a kind the form cannot hold (${JSON.stringify(type)})`;
  }
}

/** The values of an `enum`, or the `const`s of a `oneOf`/`anyOf`; undefined: any value. */
function choicesOf(list: unknown, titled: unknown): string[] | undefined {
  if (Array.isArray(list)) return list.filter((x) => typeof x === "string");
  if (Array.isArray(titled))
    return titled.flatMap((o) => (isRecord(o) && typeof o.const === "string" ? [o.const] : []));
  return undefined;
}

function lengthProblem(f: Pick<Field, "minLength" | "maxLength">, n: number, what: string) {
  if (typeof f.minLength === "number" && n < f.minLength) return `must have at least ${f.minLength} ${what}`;
  if (typeof f.maxLength === "number" && n > f.maxLength) return `must have at most ${f.maxLength} ${what}`;
  return undefined;
}

const FORMATS: Readonly<Record<string, (v: string) => boolean>> = {
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uri: (v) => URL.canParse(v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  "date-time": (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)),
};

function formatProblem(format: unknown, v: string): string | undefined {
  const fits = typeof format === "string" ? FORMATS[format] : undefined;
  return fits && !fits(v) ? `must be ${format === "email" ? "an" : "a"} ${format}` : undefined;
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
