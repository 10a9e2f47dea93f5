import { readFileSync } from "node:fs";
import { WriteError } from "./errors.js";

/**
 * A store of the user's kept in one JSON file, `{ "version": 1, "<key>": { … } }` (the trust file,
 * MCP sign-ins): its entries read strictly. A file that is not there holds nothing; one that is
 * there but cannot be read as such a file throws `WriteError` saying what to do, and is never
 * overwritten.
 */
export interface JsonStoreShape {
  /** The object of entries: `folders`, `servers`. */
  readonly key: string;
  /** What the file is, in a sentence: "a trust file". */
  readonly noun: string;
  /** What moving it away costs: "to start again (every folder is then untrusted)". */
  readonly away: string;
  /** A file without `version` is read as version 1. */
  readonly versionOptional?: boolean;
}

export function readJsonStore(file: string, shape: JsonStoreShape): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new WriteError(`cannot read ${file} (${(e as Error).message}); agentmd leaves it as it is`);
  }
  const broken = (why: string) =>
    new WriteError(
      `${file} is not ${shape.noun} agentmd can read (${why}); agentmd leaves it as it is: fix it by hand, or move it away ${shape.away}`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw broken(`not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw broken("not a JSON object");
  const { version, [shape.key]: entries } = value as Record<string, unknown>;
  if (version !== 1 && !(shape.versionOptional && version === undefined))
    throw broken(`version ${JSON.stringify(version)}, not 1`);
  if (entries === undefined) return {};
  if (typeof entries !== "object" || entries === null || Array.isArray(entries))
    throw broken(`"${shape.key}" is not an object`);
  return { ...(entries as Record<string, unknown>) };
}
