import { setOwn } from "../shared/own.js";

/**
 * A model's tool input may arrive as an object, a JSON string, `null` or nothing. This turns it
 * into a prototype-less object tree, or says why it cannot.
 */
export type NormalisedInput =
  | { readonly ok: true; readonly input: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly message: string };

const MAX_DEPTH = 64;

export function normaliseInput(toolName: string, raw: unknown): NormalisedInput {
  let value = raw;
  if (value === null || value === undefined) return { ok: true, input: Object.create(null) };
  if (typeof value === "string") {
    if (value.trim() === "") return { ok: true, input: Object.create(null) };
    try {
      value = JSON.parse(value);
    } catch {
      return {
        ok: false,
        message: `Invalid input for ${toolName}: the input is not a JSON object. The tool was not executed.`,
      };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const got = Array.isArray(value) ? "a list" : value === null ? "null" : typeof value;
    return {
      ok: false,
      message: `Invalid input for ${toolName}: expected a JSON object, got ${got}. The tool was not executed.`,
    };
  }
  const copy = safeCopy(value, 0);
  if (copy === TOO_DEEP) {
    return {
      ok: false,
      message: `Invalid input for ${toolName}: nested more than ${MAX_DEPTH} levels. The tool was not executed.`,
    };
  }
  return { ok: true, input: copy as Record<string, unknown> };
}

const TOO_DEEP = Symbol("too deep");

/**
 * A copy in which every object has no prototype and every key (`__proto__`, `constructor`,
 * `prototype` included) is an ordinary own property, so no key from a model reaches a prototype.
 */
function safeCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const c = safeCopy(item, depth + 1);
      if (c === TOO_DEEP) return TOO_DEEP;
      out.push(c);
    }
    return out;
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    const c = safeCopy((value as Record<string, unknown>)[key], depth + 1);
    if (c === TOO_DEEP) return TOO_DEEP;
    setOwn(out, key, c);
  }
  return out;
}
