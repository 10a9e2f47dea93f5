import { setOwn } from "../shared/own.js";

/**
 * Schemas we do not own (MCP and custom tools) may use property keys the Messages API rejects
 * (`$top`, `@odata.type`, keys over 64 characters), and one bad key makes the API reject the whole
 * request. This rewrites such keys at every depth, remembers how, and maps the model's input back
 * to the original keys before the tool runs.
 */

const VALID_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;
const VALID_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const MAX_DEPTH = 64;
const MAX_REF_EXPANSIONS = 1000;

/** How to restore one level of input: renamed keys, and the maps for the values below. */
export interface KeyMap {
  /** sanitised key → original key, for the keys that were renamed. */
  readonly rename: Map<string, string>;
  /** sanitised key → the map for that property's value. */
  readonly props: Map<string, KeyMap>;
  /** Every property name declared at this level (sanitised). */
  readonly known: Set<string>;
  /** The map for array items at this level. */
  items?: KeyMap;
  /** The map for values under keys no property names (additionalProperties, patternProperties). */
  additional?: KeyMap;
}

export interface SanitisedSchema {
  readonly schema: Record<string, unknown>;
  /** Null when no key anywhere was renamed: input passes through untouched. */
  readonly keys: KeyMap | null;
}

/** A short deterministic hash (djb2, base 36). */
export function shortHash(s: string): string {
  let h = 5381;
  for (let i = 0; i < s.length; i++) h = ((h << 5) + h + s.charCodeAt(i)) >>> 0;
  return h.toString(36).padStart(7, "0").slice(-7);
}

/** `$top` → `dollar_top`, `@odata.type` → `at_odata.type`, other invalid characters → `_`. */
export function sanitiseKey(key: string): string {
  if (VALID_KEY.test(key)) return key;
  let s = key
    .replace(/\$/g, "dollar_")
    .replace(/@/g, "at_")
    .replace(/[^a-zA-Z0-9_.-]/g, "_");
  if (s === "" || /^_+$/.test(s)) s = `key_${shortHash(key)}`;
  if (s.length > 64) s = `${s.slice(0, 56)}_${shortHash(key)}`;
  return s;
}

/** A tool name the API accepts (`^[a-zA-Z0-9_-]{1,128}$`); `taken` resolves collisions. */
export function sanitiseToolName(name: string, taken: ReadonlySet<string> = new Set()): string {
  let s = VALID_TOOL_NAME.test(name) ? name : name.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (s === "" || /^_+$/.test(s)) s = `tool_${shortHash(name)}`;
  if (s.length > 128) s = `${s.slice(0, 120)}_${shortHash(name)}`;
  return unique(s, name, taken, 128);
}

function unique(candidate: string, original: string, taken: ReadonlySet<string>, max: number): string {
  if (!taken.has(candidate)) return candidate;
  const withHash = `${candidate.slice(0, max - 8)}_${shortHash(original)}`;
  if (!taken.has(withHash)) return withHash;
  for (let n = 2; ; n++) {
    const c = `${withHash.slice(0, max - String(n).length - 1)}_${n}`;
    if (!taken.has(c)) return c;
  }
}

const emptyMap = (): KeyMap => ({ rename: new Map(), props: new Map(), known: new Set() });

function isEmpty(m: KeyMap | undefined): boolean {
  return (
    !m ||
    (m.rename.size === 0 && [...m.props.values()].every(isEmpty) && isEmpty(m.items) && isEmpty(m.additional))
  );
}

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Inlines local `$ref`s (a dangling or endlessly recursive one becomes a permissive object),
 * drops `$defs`, rewrites invalid keys at every depth, and drops duplicate `required` entries.
 * Contract: never throws; whatever cannot be made sense of becomes permissive.
 */
export function sanitiseSchema(schema: unknown): SanitisedSchema {
  const root = isObj(schema) ? schema : { type: "object" };
  const budget = { left: MAX_REF_EXPANSIONS };
  const inlined = inline(root, root, [], budget, 0);
  const map = emptyMap();
  const out = rewrite(inlined, map, 0);
  const top = isObj(out) ? out : { type: "object" };
  if (top.type === undefined) top.type = "object";
  return { schema: top, keys: isEmpty(map) ? null : map };
}

const PERMISSIVE = (): Json => ({ type: "object", additionalProperties: true });

function resolvePointer(root: Json, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node as object, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function inline(
  node: unknown,
  root: Json,
  stack: readonly string[],
  budget: { left: number },
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) return PERMISSIVE();
  if (Array.isArray(node)) return node.map((n) => inline(n, root, stack, budget, depth + 1));
  if (!isObj(node)) return node;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    const target = resolvePointer(root, ref);
    budget.left--;
    if (target === undefined || stack.includes(ref) || budget.left < 0) return PERMISSIVE();
    const { $ref: _drop, ...siblings } = node;
    const resolved = inline(target, root, [...stack, ref], budget, depth + 1);
    return isObj(resolved)
      ? { ...(inline(siblings, root, stack, budget, depth + 1) as Json), ...resolved }
      : resolved;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$defs" || k === "definitions") continue;
    setOwn(out, k, inline(v, root, stack, budget, depth + 1));
  }
  return out;
}

const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf"];

/** Rewrites one schema node into `map` (the map for values this node describes). */
function rewrite(node: unknown, map: KeyMap, depth: number): unknown {
  if (depth > MAX_DEPTH || !isObj(node)) return isObj(node) ? PERMISSIVE() : node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "properties" && isObj(v)) {
      const renamed: Json = {};
      const names = new Map<string, string>();
      const taken = new Set(Object.keys(v).filter((key) => VALID_KEY.test(key)));
      for (const key of Object.keys(v)) {
        const name = VALID_KEY.test(key) ? key : unique(sanitiseKey(key), key, taken, 64);
        taken.add(name);
        names.set(key, name);
        map.known.add(name);
        if (name !== key) map.rename.set(name, key);
        const child = map.props.get(name) ?? emptyMap();
        setOwn(renamed, name, rewrite(v[key], child, depth + 1));
        if (!isEmpty(child)) map.props.set(name, child);
      }
      out.properties = renamed;
      if (Array.isArray(node.required)) {
        out.required = [
          ...new Set(
            node.required
              .filter((r): r is string => typeof r === "string")
              .map((r) => names.get(r) ?? sanitiseKey(r)),
          ),
        ];
      }
    } else if (k === "required") {
      if (!isObj(node.properties) && Array.isArray(v))
        out.required = [...new Set(v.filter((r) => typeof r === "string"))];
    } else if (k === "items" || k === "prefixItems" || k === "contains") {
      const items = map.items ?? emptyMap();
      out[k] = Array.isArray(v) ? v.map((x) => rewrite(x, items, depth + 1)) : rewrite(v, items, depth + 1);
      if (!isEmpty(items)) map.items = items;
    } else if (k === "additionalProperties" || k === "patternProperties") {
      const extra = map.additional ?? emptyMap();
      out[k] =
        k === "patternProperties" && isObj(v)
          ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, rewrite(s, extra, depth + 1)]))
          : rewrite(v, extra, depth + 1);
      if (!isEmpty(extra)) map.additional = extra;
    } else if (SCHEMA_LISTS.includes(k) && Array.isArray(v)) {
      out[k] = v.map((s) => rewrite(s, map, depth + 1));
    } else if ((k === "not" || k === "if" || k === "then" || k === "else") && isObj(v)) {
      out[k] = rewrite(v, map, depth + 1);
    } else if (k === "dependentSchemas" && isObj(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, rewrite(s, map, depth + 1)]));
    } else {
      setOwn(out, k, v);
    }
  }
  return out;
}

/**
 * The model's input with sanitised keys mapped back to the original ones, as prototype-less
 * objects. Values under dynamic keys (additionalProperties) are restored below, not their keys.
 */
export function restoreKeys(value: unknown, map: KeyMap | null | undefined, depth = 0): unknown {
  if (!map || depth > MAX_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return map.items ? value.map((v) => restoreKeys(v, map.items, depth + 1)) : value;
  const out: Json = Object.create(null);
  for (const key of Object.keys(value)) {
    const original = map.rename.get(key) ?? key;
    const child = map.props.get(key) ?? (map.known.has(key) ? undefined : map.additional);
    setOwn(out, original, restoreKeys((value as Json)[key], child, depth + 1));
  }
  return out;
}
