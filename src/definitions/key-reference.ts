import { editorSchema } from "./editor-schemas.js";
import { FOREIGN_KEY_DOC, keyDoc } from "./key-docs.js";
import { FOREIGN_KEYS, knownKeys, SURFACE_SCHEMAS } from "./surface-schemas.js";
import { SURFACES, type Surface } from "./types.js";

/**
 * The key tables of docs/formats.md, generated from the same sources as the editor schemas
 * (`SURFACE_SCHEMAS`, `KEY_DOCS`, `FOREIGN_KEYS`). `npm run build` writes them between the two
 * markers; a test compares what is there with what this makes.
 */

export const KEY_REFERENCE_START =
  "<!-- generated from src/definitions/key-docs.ts and surface-schemas.ts by `npm run build`: edit those, not this -->";
export const KEY_REFERENCE_END = "<!-- end of the generated key reference -->";

type JsonSchema = Record<string, unknown>;

const HEADINGS: Readonly<Record<Surface, string>> = {
  main: "agent.md",
  agent: "Subagents: `agents/**/*.md`",
  skill: "Skills: `skills/<name>/SKILL.md`",
  command: "Commands: `commands/**/*.md`",
};
const COLUMNS: Readonly<Record<Surface, string>> = {
  main: "agent.md",
  agent: "subagents",
  skill: "skills",
  command: "commands",
};

/** The generated part of docs/formats.md: which surface reads which key, then each surface's keys. */
export function keyReference(): string {
  const out: string[] = [];
  const all = [...new Set(SURFACES.flatMap((s) => [...knownKeys(s)]))];
  out.push("### Which surface reads which key", "");
  out.push(`| key | ${SURFACES.map((s) => COLUMNS[s]).join(" | ")} |`);
  out.push(`|---|${SURFACES.map(() => "---").join("|")}|`);
  for (const key of all) out.push(`| \`${key}\` | ${SURFACES.map((s) => presence(key, s)).join(" | ")} |`);
  out.push(
    "",
    "yes: read and acted on; **required**: the file does not load without it; ignored: accepted (info " +
      "diagnostic) and not acted on; —: a warning (`key-not-for-surface`), and ignored.",
  );
  for (const surface of SURFACES) {
    const properties = editorSchema(surface).properties as Record<string, JsonSchema>;
    out.push(
      "",
      `### ${HEADINGS[surface]}`,
      "",
      "| key | type | default | what it does |",
      "|---|---|---|---|",
    );
    for (const key of knownKeys(surface)) {
      const doc = keyDoc(key, surface);
      if (!doc) throw new Error(`'${key}' (${surface}) has no description in KEY_DOCS`);
      const type = doc.type ?? typeLabel(properties[key] ?? {});
      out.push(`| \`${key}\` | ${cell(type)} | ${cell(doc.default ?? "—")} | ${cell(doc.description)} |`);
    }
  }
  const foreign = [...FOREIGN_KEYS].sort().map((k) => `\`${k}\``);
  out.push(
    "",
    "### Keys accepted and ignored",
    "",
    `${FOREIGN_KEY_DOC.description} On every surface that does not read them itself: ${foreign.join(", ")}.`,
  );
  return out.join("\n");
}

function presence(key: string, surface: Surface): string {
  if (knownKeys(surface).has(key)) {
    if (surface === "command" && key === "name") return "ignored";
    const required = SURFACE_SCHEMAS[surface].required;
    return Array.isArray(required) && required.includes(key) ? "**required**" : "yes";
  }
  return FOREIGN_KEYS.has(key) ? "ignored" : "—";
}

/** A value's type as a reader would say it, from its editor schema. */
export function typeLabel(s: JsonSchema): string {
  if (Array.isArray(s.enum)) return s.enum.map((v) => `\`${String(v)}\``).join(" or ");
  if (Array.isArray(s.anyOf) && s.type === undefined)
    return (s.anyOf as JsonSchema[]).map(typeLabel).join(" or ");
  switch (s.type) {
    case "integer":
    case "number":
      if (typeof s.minimum === "number") return `${s.type} ≥ ${s.minimum}`;
      if (typeof s.exclusiveMinimum === "number") return `${s.type} > ${s.exclusiveMinimum}`;
      return String(s.type);
    case "string":
      return s.pattern === undefined ? "string" : `string matching \`${String(s.pattern)}\``;
    case "object":
      return "map";
    case "array":
      return "list";
    case undefined:
      return "any";
    default:
      return String(s.type);
  }
}

/** Text for one table cell: pipes escaped, on one line. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

/** `doc` with the text between the markers replaced by `keyReference()`. Throws without the markers. */
export function withKeyReference(doc: string): string {
  const start = doc.indexOf(KEY_REFERENCE_START);
  const end = doc.indexOf(KEY_REFERENCE_END);
  if (start === -1 || end < start) throw new Error("docs/formats.md has lost the key reference markers");
  return `${doc.slice(0, start + KEY_REFERENCE_START.length)}\n\n${keyReference()}\n\n${doc.slice(end)}`;
}
