import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import { distance } from "fastest-levenshtein";
import { isCollection, isScalar } from "yaml";
import { newAjv } from "../shared/ajv.js";
import { suggestion } from "../shared/did-you-mean.js";
import { checkHooks } from "./check-hooks.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { listWord } from "./list-words.js";
import { describe, parseToolList } from "./parse-tool-list.js";
import {
  ALLOW_LIST_KEYS,
  BOOLEAN_KEYS,
  CHECKED_SCHEMAS,
  DENY_LIST_KEYS,
  FOREIGN_KEYS,
  knownKeys,
  STRING_KEYS,
  SURFACE_LABEL,
} from "./surface-schemas.js";
import type { ToolNames } from "./tool-names.js";
import type { Surface, ToolList } from "./types.js";
import type { Field } from "./yaml-fields.js";

export interface CheckedFields {
  /** Values of the keys this surface knows, after coercion; prototype-less. */
  readonly values: Record<string, unknown>;
  readonly allowedTools?: ToolList;
  readonly disallowedTools?: ToolList;
  /** False when an error makes the definition unusable. */
  readonly ok: boolean;
}

const SURFACES: readonly Surface[] = ["main", "agent", "skill", "command"];
const validators = new Map<Surface, ValidateFunction>();

export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;

/** Validators precompiled at build time (scripts/build-validators.mjs), when they are there. */
let precompiled: Partial<Record<Surface, ValidateFunction>> | null | undefined;

function validatorFor(surface: Surface): ValidateFunction {
  let v = validators.get(surface);
  if (!v) {
    if (precompiled === undefined) {
      try {
        precompiled = createRequire(import.meta.url)("./surface-validators.cjs");
      } catch {
        precompiled = null;
      }
    }
    v = precompiled?.[surface] ?? newAjv(AJV_OPTIONS).compile(CHECKED_SCHEMAS[surface]);
    validators.set(surface, v);
  }
  return v;
}

/**
 * Judges every frontmatter key of one file: spelling first (misspelled list keys are errors,
 * other unknown keys warnings, foreign keys info), then value types through the surface's schema.
 */
export function checkFields(
  fields: readonly Field[],
  surface: Surface,
  sink: DiagnosticSink,
  tools?: ToolNames,
): CheckedFields {
  const known = knownKeys(surface);
  const values: Record<string, unknown> = Object.create(null);
  const byKey = new Map<string, Field>();
  let ok = true;
  for (const field of fields) {
    const report = sink.at(field.keyPos);
    if (field.key === "<<") {
      ok = false;
      report(
        "error",
        "merge-key",
        "YAML merge keys ('<<') are not read here: write the keys out, so that every list is where it seems",
      );
      continue;
    }
    if (known.has(field.key)) {
      byKey.set(field.key, field);
      continue;
    }
    const listKey = misspelledListKey(field.key);
    if (listKey) {
      ok = false;
      report(
        "error",
        "misspelled-list-key",
        `unknown key '${field.key}'; did you mean '${listKey}'? A misspelled tool list would run unrestricted, so this file is not loaded`,
      );
    } else if (FOREIGN_KEYS.has(field.key)) {
      report("info", "foreign-key", `'${field.key}' is accepted and ignored: agentmd does not act on it`);
    } else {
      const elsewhere = SURFACES.filter((s) => s !== surface && knownKeys(s).has(field.key));
      if (elsewhere.length > 0) {
        report(
          "warning",
          "key-not-for-surface",
          `'${field.key}' is not a key of ${SURFACE_LABEL[surface]} (it belongs to ${elsewhere.map((s) => SURFACE_LABEL[s]).join(", ")}); it is ignored`,
        );
      } else {
        const meant = listLikeKey(field.key, field.value);
        if (meant) {
          ok = false;
          report(
            "error",
            "misspelled-list-key",
            `unknown key '${field.key}' reads as a tool list or permissions; did you mean ${meant}? A list under a name agentmd does not read would not apply, so this file is not loaded`,
          );
        } else {
          report(
            "warning",
            "unknown-key",
            `unknown key '${field.key}' is ignored${suggestion(field.key, known)}`,
          );
        }
      }
    }
  }
  for (const pair of [ALLOW_LIST_KEYS, DENY_LIST_KEYS]) {
    const [a, b] = pair.map((k) => byKey.get(k));
    if (a && b) {
      ok = false;
      sink.add(
        "error",
        "duplicate-list-key",
        `both '${a.key}' and '${b.key}' are given; they name the same list, so keep one`,
        b.keyPos.line,
        b.keyPos.column,
      );
    }
  }
  if (surface === "command" && byKey.has("name")) {
    const f = byKey.get("name") as Field;
    sink.add(
      "info",
      "command-name-ignored",
      "'name' is ignored: a command is named by its path below commands/",
      f.keyPos.line,
      f.keyPos.column,
    );
    byKey.delete("name");
  }
  const hooks = byKey.get("hooks");
  // Hooks are judged by checkHooks alone (as in settings files), not by the schema below
  // (CHECKED_SCHEMAS takes any value there, as for `thinking`, which readThinkingField judges).
  if (hooks && !checkHooks(hooks.value, { locate: hooks.locate, locateKey: hooks.locate }, sink)) ok = false;
  const unusable = new Set<string>();
  for (const [key, field] of byKey) {
    const v = coerce(field, sink);
    if (v.ok) values[key] = v.value;
    else unusable.add(key);
  }
  if (unusable.size > 0) ok = false;
  const validate = validatorFor(surface);
  if (!validate(values)) {
    for (const err of validate.errors ?? []) {
      if (err.keyword === "required" && unusable.has(String(err.params.missingProperty))) continue;
      if (reportSchemaError(err, byKey, surface, sink)) ok = false;
    }
  }
  let allowedTools: ToolList | undefined;
  let disallowedTools: ToolList | undefined;
  for (const key of ALLOW_LIST_KEYS) {
    const f = byKey.get(key);
    if (f && !allowedTools) allowedTools = parseToolList(f, sink, tools) ?? undefined;
  }
  for (const key of DENY_LIST_KEYS) {
    const f = byKey.get(key);
    if (f && !disallowedTools) disallowedTools = parseToolList(f, sink, tools) ?? undefined;
  }
  if (sink.hasErrors) ok = false;
  return { values, ok, ...(allowedTools && { allowedTools }), ...(disallowedTools && { disallowedTools }) };
}

/** Other words people use for the two lists: taken as meant to be them, so an error. */
const LIST_KEY_SYNONYMS = new Map<string, string>([
  ...[
    "denytools",
    "deniedtools",
    "blockedtools",
    "blocktools",
    "forbiddentools",
    "excludedtools",
    "disabledtools",
  ].map((k) => [k, "disallowed-tools"] as const),
  ...["denylist", "blocklist", "toolsdenylist", "toolsblocklist"].map(
    (k) => [k, "disallowed-tools"] as const,
  ),
  ...["permittedtools", "enabledtools", "allowlist", "toolsallowlist", "toolallowlist"].map(
    (k) => [k, "allowed-tools"] as const,
  ),
]);

const LIST_KEY_TARGETS: readonly [normalised: string, canonical: string, tolerance: number][] = [
  ["allowedtools", "allowed-tools", 2],
  ["disallowedtools", "disallowed-tools", 2],
  ["tools", "tools", 1],
];

/**
 * The list key that `key` is a near miss of: the same letters once case, `-` and `_` are dropped,
 * or a small edit distance (`allowedTools`, `allowed_tools`, `allowed-tool`, `alowed-tools`).
 */
export function misspelledListKey(key: string): string | undefined {
  const norm = key.toLowerCase().replace(/[-_\s]/g, "");
  const synonym = LIST_KEY_SYNONYMS.get(norm);
  if (synonym) return synonym;
  for (const [target, canonical, tolerance] of LIST_KEY_TARGETS) {
    if (distance(norm, target) <= tolerance) return canonical;
  }
  return undefined;
}

/**
 * What an unknown key named like a tool list or permissions (`deny`, `exclude-tools`,
 * `permissions: {deny: […]}`, see `listWord`) was meant to be, quoted for a message
 * (`'disallowed-tools'`); undefined for a key whose name says nothing of the kind.
 */
export function listLikeKey(key: string, value?: unknown): string | undefined {
  const word = listWord(key);
  if (word === "deny") return "'disallowed-tools'";
  if (word === "allow") return "'allowed-tools'";
  if (word === "permissions") {
    const inner =
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? Object.keys(value).map(listWord)
        : [];
    const lists = [
      ...(inner.includes("deny") ? ["'disallowed-tools'"] : []),
      ...(inner.includes("allow") ? ["'allowed-tools'"] : []),
    ];
    const named = lists.length > 0 ? lists.join(" and ") : "'allowed-tools' or 'disallowed-tools'";
    return `${named} (a 'permissions' block belongs in .claude/settings.json)`;
  }
  if (word === "tools") return "'tools' (or 'allowed-tools', 'disallowed-tools')";
  return undefined;
}

const TEMPLATE = /\{\{.*\}\}/s;

function coerce(field: Field, sink: DiagnosticSink): { ok: true; value: unknown } | { ok: false } {
  const { key, value } = field;
  const report = sink.at(field.valuePos);
  if (STRING_KEYS.has(key)) {
    if (typeof value === "string") {
      if (key === "name" && TEMPLATE.test(value)) {
        report("error", "template-placeholder", `'name' is an unfilled template placeholder '${value}'`);
        return { ok: false };
      }
      return { ok: true, value };
    }
    if (value === null) return { ok: true, value: undefined };
    if (TEMPLATE.test(field.source)) {
      report(
        "error",
        "template-placeholder",
        `'${key}' is an unfilled template placeholder '${field.source}'`,
      );
      return { ok: false };
    }
    if (typeof value === "number" || typeof value === "boolean") {
      report(
        "warning",
        "coerced-to-string",
        `'${key}' should be text; took ${String(value)} as '${String(value)}'`,
      );
      return { ok: true, value: String(value) };
    }
    if (isCollection(field.node) && field.node.flow && key !== "name") {
      report(
        "warning",
        "collection-as-text",
        `'${key}' parsed as a YAML ${Array.isArray(value) ? "list" : "map"}; kept the text '${field.source}' as written (quote it to silence this)`,
      );
      return { ok: true, value: field.source };
    }
    report("error", "value-type", `'${key}' must be text, got ${describe(value)}`);
    return { ok: false };
  }
  if (key === "toolConcurrency" && typeof value === "boolean") return { ok: true, value: { enabled: value } };
  if (BOOLEAN_KEYS.has(key) && typeof value === "string" && /^(true|false)$/i.test(value)) {
    report(
      "warning",
      "coerced-to-boolean",
      `'${key}' should be true or false without quotes; took '${value}' as ${value.toLowerCase()}`,
    );
    return { ok: true, value: value.toLowerCase() === "true" };
  }
  if (isScalar(field.node) && typeof value === "string" && field.node.type === "PLAIN" && value === "") {
    return { ok: true, value: undefined };
  }
  return { ok: true, value: value ?? undefined };
}

/** Reports one ajv error at the position of the offending value; returns whether it is an error. */
function reportSchemaError(
  err: ErrorObject,
  byKey: Map<string, Field>,
  surface: Surface,
  sink: DiagnosticSink,
): boolean {
  const path = err.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const [key, ...inner] = path;
  const field = typeof key === "string" ? byKey.get(key) : undefined;
  const pos = field ? field.locate(inner) : { line: 1, column: 1 };
  const where = path.length ? `'${path.join(".")}'` : "";
  const got = (v: unknown) => describe(v);
  const params = err.params as Record<string, unknown>;
  if (err.keyword === "anyOf" || err.keyword === "if") return false;
  let message: string;
  let code = "value-type";
  switch (err.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      code = "missing-key";
      message = path.length
        ? `${where} is missing '${missing}'`
        : `missing required key '${missing}' (${SURFACE_LABEL[surface]} need ${surface === "skill" ? "a description" : "a name and a description"})`;
      break;
    }
    case "type":
      // A list of types (`["boolean", "object"]`) reads "a boolean or object".
      message = `${where} must be ${article(Array.isArray(params.type) ? params.type.join(" or ") : String(params.type))}, got ${got(err.data)}`;
      break;
    case "enum":
      message = `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(", ")}, got ${got(err.data)}`;
      break;
    case "minimum":
      message = `${where} must be at least ${String(params.limit)}, got ${got(err.data)}`;
      break;
    case "maxLength":
      message = `${where} must be at most ${String(params.limit)} characters, got ${String((err.data as string).length)}`;
      break;
    case "pattern":
      code = key === "name" && surface === "skill" ? "skill-name" : "value-format";
      message =
        code === "skill-name"
          ? `skill name ${got(err.data)} must be lowercase letters, digits and single hyphens (Agent Skills rule)`
          : `${where} ${got(err.data)} does not match ${String(params.pattern)}`;
      break;
    case "additionalProperties": {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys((err.parentSchema?.properties as object | undefined) ?? {});
      message = `${where} has an unknown key '${extra}'${suggestion(extra, allowed)}`;
      code = "unknown-key";
      break;
    }
    default:
      message = `${where} ${err.message ?? "is invalid"}`;
  }
  sink.add("error", code, message, pos.line, pos.column);
  return true;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
