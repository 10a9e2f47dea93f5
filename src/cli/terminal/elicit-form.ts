import type { Elicit, ElicitationAnswer } from "../../mcp/elicitation.js";
import type { Style } from "../io.js";
import { printable } from "./printable.js";

type Value = string | number | boolean | readonly string[];
interface Field {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  readonly default?: unknown;
}

/**
 * A server's question in chat: its message, then one line per field of its form. The first answer
 * says whether to fill it in (y), decline it (n) or cancel (c); a required field left empty, or a
 * value of the wrong kind, is asked again. The end of the input cancels.
 */
export function formElicit(
  ask: (question: string) => Promise<string | undefined>,
  style: Style,
  around: { before(): void; after(): void },
): Elicit {
  return async (request) => {
    around.before();
    try {
      const head = `${style.yellow(`MCP server '${printable(request.server, false)}' asks:`)} ${printable(request.message, false)}\n`;
      const choice = (await ask(`${head}answer it? [y]es / [n]o (decline) / [c]ancel: `))
        ?.trim()
        .toLowerCase();
      if (choice === undefined || choice.startsWith("c")) return { action: "cancel" };
      if (!choice.startsWith("y")) return { action: "decline" };
      return await fill(request.requestedSchema, ask, style);
    } finally {
      around.after();
    }
  };
}

async function fill(
  schema: Readonly<Record<string, unknown>>,
  ask: (question: string) => Promise<string | undefined>,
  style: Style,
): Promise<ElicitationAnswer> {
  const properties = (schema.properties ?? {}) as Record<string, Field>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const content: Record<string, Value> = {};
  for (const [name, field] of Object.entries(properties)) {
    const label = `  ${printable(field.title ?? name, false)}${field.description ? style.dim(` (${printable(field.description, false)})`) : ""}${hint(field)}${required.has(name) ? " *" : ""}: `;
    for (;;) {
      const line = await ask(label);
      if (line === undefined) return { action: "cancel" };
      const typed = line.trim();
      if (typed === "" && !required.has(name)) break;
      const value = typedValue(field, typed);
      if (value !== undefined) {
        content[name] = value;
        break;
      }
    }
  }
  return { action: "accept", content };
}

function hint(f: Field): string {
  if (f.enum) return ` [${f.enum.join("/")}]`;
  if (f.type === "boolean") return " [y/n]";
  if (f.type === "number" || f.type === "integer") return ` [${f.type}]`;
  return "";
}

/** The typed text as the field's kind of value; undefined: not one (asked again). */
function typedValue(f: Field, typed: string): Value | undefined {
  if (typed === "") return undefined;
  if (f.enum) return f.enum.includes(typed) ? typed : undefined;
  if (f.type === "boolean") {
    if (/^(y|yes|true)$/i.test(typed)) return true;
    return /^(n|no|false)$/i.test(typed) ? false : undefined;
  }
  if (f.type === "number" || f.type === "integer") {
    const n = Number(typed);
    return Number.isFinite(n) && (f.type === "number" || Number.isInteger(n)) ? n : undefined;
  }
  return typed;
}
