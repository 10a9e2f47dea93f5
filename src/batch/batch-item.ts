/**
 * One run of a batch, as a line of a JSONL file: `{"id", "prompt" | "line", "agent"?, "cwd"?}`.
 * `prompt` is plain text for the agent; `line` is typed as in the REPL (`/name args` runs a command
 * or skill). `cwd`, when relative, is taken from the project folder, so that every machine of a
 * cluster reads a job the same way.
 */
export interface BatchItem {
  readonly id: string;
  readonly input: { readonly kind: "prompt" | "line"; readonly text: string };
  readonly agent?: string;
  readonly cwd?: string;
}

export interface ItemError {
  /** 1-based line of the file. */
  readonly line: number;
  readonly message: string;
}

const MAX_ID_LENGTH = 200;
const KNOWN_KEYS = new Set(["id", "prompt", "line", "agent", "cwd"]);

/**
 * Reads a batch file: every line that is not blank is one item. Contract: never throws; every
 * problem (bad JSON, a missing or repeated id, both or neither of prompt and line, an unknown key) is
 * an error with its line, and a file with any error should run nothing, since a typo fixed later
 * would otherwise run twice under two spellings.
 */
export function parseBatchItems(text: string): { items: BatchItem[]; errors: ItemError[] } {
  const items: BatchItem[] = [];
  const errors: ItemError[] = [];
  const seen = new Map<string, number>();
  text.split("\n").forEach((raw, i) => {
    const r = itemOfLine(raw, i + 1, seen);
    if (r === undefined) return;
    if ("message" in r) errors.push(r);
    else items.push(r);
  });
  return { items, errors };
}

/**
 * One line of a batch file (1-based `line`): its item, what is wrong with it, or undefined for a
 * blank line. `seen` holds the ids met so far, by line (a repeated id is an error).
 */
export function itemOfLine(
  raw: string,
  line: number,
  seen: Map<string, number>,
): BatchItem | ItemError | undefined {
  if (raw.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return { line, message: `not JSON: ${(e as Error).message}` };
  }
  const item = batchItemOf(value);
  if (typeof item === "string") return { line, message: item };
  const first = seen.get(item.id);
  if (first !== undefined) return { line, message: `the id '${item.id}' is used on line ${first} already` };
  seen.set(item.id, line);
  return item;
}

/** One item from parsed JSON (a file's line, or a job's data), or what is wrong with it. */
export function batchItemOf(value: unknown): BatchItem | string {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return 'expected an object such as {"id": "a", "prompt": "…"}';
  const o = value as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0)
    return `unknown key ${unknown.map((k) => `'${k}'`).join(", ")} (an item has id, prompt or line, agent, cwd)`;
  const id = typeof o.id === "number" && Number.isFinite(o.id) ? String(o.id) : o.id;
  if (typeof id !== "string" || id.trim() === "") return "'id' must be a non-empty string";
  if (id.length > MAX_ID_LENGTH) return `'id' is longer than ${MAX_ID_LENGTH} characters`;
  if ((o.prompt === undefined) === (o.line === undefined))
    return "give exactly one of 'prompt' (plain text) and 'line' (typed as in the REPL, e.g. '/review 12')";
  const kind = o.prompt !== undefined ? "prompt" : "line";
  const text = o[kind];
  if (typeof text !== "string" || text.trim() === "") return `'${kind}' must be a non-empty string`;
  for (const key of ["agent", "cwd"] as const) {
    if (o[key] !== undefined && (typeof o[key] !== "string" || o[key] === ""))
      return `'${key}' must be a non-empty string`;
  }
  return {
    id,
    input: { kind, text },
    ...(typeof o.agent === "string" && { agent: o.agent }),
    ...(typeof o.cwd === "string" && { cwd: o.cwd }),
  };
}

/** The item as a line of a batch file (and as a job's data): the inverse of `batchItemOf`. */
export function itemJson(item: BatchItem): Record<string, string> {
  return {
    id: item.id,
    [item.input.kind]: item.input.text,
    ...(item.agent !== undefined && { agent: item.agent }),
    ...(item.cwd !== undefined && { cwd: item.cwd }),
  };
}
