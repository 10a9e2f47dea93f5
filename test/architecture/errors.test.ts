import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";

// Errors a caller can tell apart: every error class a module of src/ exports is one AgentmdError
// and is exported from the public entry, so `instanceof` works for every error agentmd throws.
const src = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(path.join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [path.join(dir, e.name)]
        : [],
  );
}

const declared = sourceFiles(src).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/^export class (\w+) extends (\w*Error)\b/gm)].map(
    (m) => m[1] as string,
  ),
);

describe("the errors agentmd throws", () => {
  it("finds the error classes of src/", () => {
    expect(declared).toEqual(expect.arrayContaining(["AgentmdError", "ConfigError", "UsageError"]));
  });

  it.each(declared)("exports %s from the public entry, as an AgentmdError with its own name", (name) => {
    const ctor = (api as Record<string, unknown>)[name];
    expect(typeof ctor).toBe("function");
    const error = new (ctor as new (message: string) => Error)("what to do");
    expect(error).toBeInstanceOf(api.AgentmdError);
    expect(error.name).toBe(name);
    expect(error.message).toBe("what to do");
  });
});
