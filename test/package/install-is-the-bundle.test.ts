import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/fixtures.js";

/**
 * An install is the bundle: the packages the built bundle still loads (its externals) are installed
 * with the package, and the packages it carries inside are build-time ones. Read from the built
 * dist/bundle and package.json, as `npm install` of the tarball would see them.
 */
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};
const bundleDir = path.join(REPO_ROOT, "dist/bundle");
const bundleFiles = readdirSync(bundleDir).filter((f) => f.endsWith(".mjs"));
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

const BUILTINS = new Set(builtinModules);

/**
 * The bare specifiers the bundle imports or requires at run time (Node's own modules aside; ajv's
 * code templates that name `require("ajv/...")` inside a string are not calls).
 */
function externalsOfBundle(): Set<string> {
  const out = new Set<string>();
  const pattern =
    /(?:^import\b[^;"']*?from\s*|\bimport\(|(?<![`'])\brequire\()"((?:@[\w.-]+\/)?\w[\w.-]*(?:\/[\w./-]*)?)"/gm;
  for (const f of bundleFiles) {
    for (const m of readFileSync(path.join(bundleDir, f), "utf8").matchAll(pattern)) {
      const spec = m[1] ?? "";
      if (!spec.startsWith("node:") && !BUILTINS.has(spec.split("/")[0] ?? "")) out.add(packageOf(spec));
    }
  }
  return out;
}

describe("the installed package is the bundle", () => {
  it("every package the bundle loads at run time is installed with it, or is a peer a user installs", () => {
    // A cloud provider's client is an optional peer: a user installs it beside agentmd (docs/providers.md).
    const installed = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ]);
    const externals = [...externalsOfBundle()];
    expect(externals).toContain("jiti");
    // The MCP SDK and OpenTelemetry's exporters are bundled into chunks loaded when a run uses them.
    expect(
      externals.filter((p) => /^(@modelcontextprotocol|@opentelemetry)\//.test(p) || p === "zod"),
    ).toEqual([]);
    expect(externals.filter((p) => !installed.has(p))).toEqual([]);
  });

  it("what the bundle carries inside is a build-time dependency, not installed again", () => {
    const carried = new Set<string>();
    for (const f of bundleFiles)
      for (const m of readFileSync(path.join(bundleDir, f), "utf8").matchAll(/^\/\/ node_modules\/(\S+)$/gm))
        carried.add(packageOf(m[1] ?? ""));
    for (const p of [
      "bullmq",
      "@anthropic-ai/sdk",
      "@modelcontextprotocol/sdk",
      "zod",
      "@opentelemetry/sdk-trace",
    ])
      expect(carried.has(p), p).toBe(true);
    // The public types are one self-contained file (dist/bundle/index.d.ts): no package is installed for them.
    const installed = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})];
    expect(installed.filter((d) => carried.has(d))).toEqual([]);
  });

  it("the MCP SDK, zod and OpenTelemetry's SDK are in chunks only a dynamic import reaches", () => {
    // The chunks an entry loads before any of its code runs: its static imports, followed.
    const closure = (entry: string): Set<string> => {
      const seen = new Set<string>();
      const visit = (f: string) => {
        if (seen.has(f)) return;
        seen.add(f);
        const text = readFileSync(path.join(bundleDir, f), "utf8");
        for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s*"\.\/([\w-]+\.mjs)"/gm))
          visit(m[1] ?? "");
        for (const m of text.matchAll(/^import\s*"\.\/([\w-]+\.mjs)"/gm)) visit(m[1] ?? "");
      };
      visit(entry);
      return seen;
    };
    const heavy = /^\/\/ node_modules\/(@modelcontextprotocol\/|zod\/|@opentelemetry\/(?!api\/))/m;
    const withHeavy = bundleFiles.filter((f) => heavy.test(readFileSync(path.join(bundleDir, f), "utf8")));
    expect(withHeavy.length).toBeGreaterThan(0);
    for (const entry of ["cli.mjs", "index.mjs"])
      expect(
        [...closure(entry)].filter((f) => withHeavy.includes(f)),
        entry,
      ).toEqual([]);
  });

  it("the shell parser ships as its two .wasm files beside the bundle, not as their packages", () => {
    for (const [dep, wasm] of [
      ["tree-sitter-bash", "tree-sitter-bash.wasm"],
      ["web-tree-sitter", "tree-sitter.wasm"],
    ] as const) {
      expect(Object.keys(pkg.dependencies)).not.toContain(dep);
      expect(readdirSync(bundleDir)).toContain(wasm);
      expect(readdirSync(path.join(REPO_ROOT, "dist/permissions/shell"))).toContain(wasm);
    }
  });
});
