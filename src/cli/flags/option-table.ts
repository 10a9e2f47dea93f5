import type { ParseArgsConfig } from "node:util";

type ParserOption = NonNullable<ParseArgsConfig["options"]>[string];

/**
 * One option of a command, declared once: what the parser takes (`type`, `short`, `multiple`,
 * `default`, as node's parseArgs reads them) and what `--help` says of it. The parser and the
 * help's `Options:` lines are both made from the same table, so they cannot drift apart.
 */
export type OptionDecl = ParserOption & {
  /** The value's name in the help: `--model M`. */
  readonly value?: string;
} & (
    | {
        /** The help's lines for it (the first beside the option). */
        readonly help: string | readonly string[];
        readonly aliasOf?: never;
      }
    | {
        /** Another spelling of that option: named in its help (`also --allowed-tools`), not listed on its own. */
        readonly aliasOf: string;
        readonly help?: never;
      }
  );

export type OptionTable = Readonly<Record<string, OptionDecl>>;

/** `-h, --help`, last in every command's table. */
export const HELP_OPTION = {
  help: { type: "boolean", short: "h", default: false, help: "show this help" },
} as const satisfies OptionTable;

function label(name: string, o: OptionDecl): string {
  return `${o.short ? `-${o.short}, ` : ""}--${name}${o.value ? ` ${o.value}` : ""}`;
}

function lines(help: OptionDecl["help"]): string[] {
  return help === undefined ? [] : typeof help === "string" ? [help] : [...help];
}

/** The spellings of `name` its help does not name already, as an extra line. */
function aliasLine(table: OptionTable, name: string, text: string): string[] {
  const missing = Object.entries(table)
    .filter(([alias, o]) => o.aliasOf === name && !text.includes(`--${alias}`))
    .map(([alias]) => `--${alias}`);
  return missing.length > 0 ? [`also ${missing.join(", ")}`] : [];
}

/**
 * The `Options:` lines of a command's help: each option's label, then its lines at `column`
 * (a label too long for the column stands on its own line, its lines under it).
 */
export function optionsHelp(table: OptionTable, column: number): string {
  const pad = " ".repeat(column);
  const out: string[] = [];
  for (const [name, o] of Object.entries(table)) {
    if (o.aliasOf !== undefined) continue;
    const text = lines(o.help);
    const all = [...text, ...aliasLine(table, name, text.join(" "))];
    const head = `  ${label(name, o)}`;
    if (all.length === 0) out.push(head);
    else if (head.length + 2 <= column) {
      out.push(`${head.padEnd(column)}${all[0]}`, ...all.slice(1).map((l) => `${pad}${l}`));
    } else out.push(head, ...all.map((l) => `${pad}${l}`));
  }
  return out.join("\n");
}
