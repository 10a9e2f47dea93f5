import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import { FOREIGN_HOOK_EVENTS, HOOK_EVENTS } from "../../src/definitions/check-hooks.js";
import { DiagnosticSink } from "../../src/definitions/diagnostics.js";
import { discoverPaths } from "../../src/definitions/discover.js";
import {
  editorSchema,
  editorSchemaFiles,
  SCHEMA_FILES,
  settingsEditorSchema,
} from "../../src/definitions/editor-schemas.js";
import { readFrontmatter } from "../../src/definitions/frontmatter.js";
import { FOREIGN_KEY_DOC, KEY_DOCS, keyDoc } from "../../src/definitions/key-docs.js";
import { keyReference, withKeyReference } from "../../src/definitions/key-reference.js";
import { loadDefinitionFile } from "../../src/definitions/load-definition.js";
import { IGNORED_SETTINGS_KEYS, PERMISSION_KEYS, PERMISSION_MODES } from "../../src/definitions/settings.js";
import { FOREIGN_KEYS, knownKeys } from "../../src/definitions/surface-schemas.js";
import { toolNames } from "../../src/definitions/tool-names.js";
import { SURFACES, type Surface } from "../../src/definitions/types.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import { REPO_ROOT } from "../support/fixtures.js";

const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), "utf8");

/** As frontmatter linters compile them (ajv's default strict mode), with any strictness warning a failure. */
function compile(schema: object): ValidateFunction {
  const fail = (...args: unknown[]) => {
    throw new Error(args.map(String).join(" "));
  };
  return new Ajv({ allErrors: true, logger: { log() {}, warn: fail, error: fail } }).compile(schema);
}

const validators = Object.fromEntries(SURFACES.map((s) => [s, compile(editorSchema(s))])) as Record<
  Surface,
  ValidateFunction
>;

describe("schemas/*.json", () => {
  it("are what the generator makes (after changing the schemas or KEY_DOCS, run npm run build)", () => {
    const files = editorSchemaFiles();
    expect(readdirSync(path.join(REPO_ROOT, "schemas")).sort()).toEqual(Object.keys(files).sort());
    for (const [name, text] of Object.entries(files)) expect(read(`schemas/${name}`), name).toBe(text);
  });

  it("describe every key each surface reads, and every key agentmd accepts and ignores", () => {
    for (const surface of SURFACES) {
      const properties = editorSchema(surface).properties as Record<string, { description?: string }>;
      for (const key of knownKeys(surface)) {
        expect(keyDoc(key, surface)?.description, `${key} on ${surface}`).toMatch(/\w/);
        expect(properties[key]?.description, `${key} on ${surface}`).toMatch(/\w/);
      }
      for (const key of FOREIGN_KEYS) expect(properties[key], `${key} on ${surface}`).toBeDefined();
    }
    expect(FOREIGN_KEY_DOC.description).toMatch(/\w/);
  });

  it("describe no key that no surface reads", () => {
    const known = new Set(SURFACES.flatMap((s) => [...knownKeys(s)]));
    expect(Object.keys(KEY_DOCS).filter((k) => !known.has(k))).toEqual([]);
  });

  it("compile under ajv's default strict mode without a warning, as frontmatter linters compile them", () => {
    expect(() => compile(settingsEditorSchema())).not.toThrow();
    for (const s of SURFACES) expect(validators[s]).toBeTypeOf("function");
  });
});

/** Loader diagnostics that mean an editor checking the same frontmatter must flag it. */
const FLAGGED = new Set([
  "misspelled-list-key",
  "unknown-key",
  "key-not-for-surface",
  "value-type",
  "value-format",
  "missing-key",
  "unknown-hook-event",
  "hook-shape",
  "hook-key",
  "tool-list-type",
]);
/** Loader diagnostics after which the two may differ: the loader coerces or recovers what YAML says. */
const EITHER = new Set([
  "coerced-to-string",
  "coerced-to-boolean",
  "collection-as-text",
  "yaml-recovered",
  "template-placeholder",
]);

function frontmatterOf(file: string, surface: Surface): Record<string, unknown> | undefined {
  const fm = readFrontmatter(readFileSync(file, "utf8"), new DiagnosticSink(file, surface));
  if (!fm.present || fm.failed) return undefined;
  return Object.fromEntries(fm.fields.map((f) => [f.key, f.value]));
}

describe("the editor schemas agree with the loader", () => {
  const known = toolNames(builtinCatalog().names);
  const cases: [surface: Surface, frontmatter: string, flagged: boolean][] = [
    ["agent", "name: a\ndescription: d\ntools: Read, Grep", false],
    ["agent", "name: a\ndescription: d\ntools:\n  - Read\n  - Bash(git diff:*)", false],
    ["agent", "name: a\ndescription: d\nallowedTools: Read", true],
    ["agent", "name: a\ndescription: d\ncolor: blue\nmemory: user\nmaxTurns: 5", false],
    ["agent", "name: a\ntools: Read", true],
    ["agent", "name: a\ndescription: d\nmaxIterations: 0", true],
    ["main", "toolConcurrency: false", false],
    ["main", "toolConcurrency:\n  maxConcurrency: 2\n  perBatch: 1", true],
    ["main", "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x", false],
    [
      "main",
      "hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: ./check.sh\n      timeout: 5",
      false,
    ],
    ["main", "hooks:\n  preToolUse:\n    - command: x", true],
    ["main", "hooks:\n  PreToolUse:\n    - matcher: Bash", true],
    ["main", "hooks:\n  PreToolUse:\n    matcher: Bash\n    command: x", true],
    ["main", "hooks:\n  PreToolUse:\n    - matchr: Bash\n      command: x", true],
    ["main", "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          comand: x", true],
    ["main", "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command", true],
    ["main", "hooks:\n  PreToolUse:\n    - hooks:\n        - type: prompt\n          prompt: safe?", false],
    [
      "agent",
      "name: a\ndescription: d\nhooks:\n  PostToolUse:\n    - matcher: Edit\n      hooks:\n        - type: command\n          command: x\n          statusMessage: y",
      false,
    ],
    ["main", "sandbox:\n  allowedDomains: [example.com]", false],
    ["main", "sandbox: yes please", true],
    ["main", "toolSearch: auto:20", false],
    ["main", "toolSearch: sometimes", true],
    ["main", "schemaValidation: strict", true],
    ["main", "baseUrl: localhost:8080", true],
    ["main", "allowed-tools: []\ndisallowed-tools:", false],
    ["skill", "name: pdf-tools\ndescription: d\ncontext: fork\nagent: reviewer\nlicense: MIT", false],
    // A name that breaks the Agent Skills rule is a warning (the folder's name is used), not flagged.
    ["skill", "name: PDF\ndescription: d", false],
    ["skill", "name: pdf-tools", true],
    ["command", "description: d\nargument-hint: <file>\nmodel: haiku", false],
    ["command", "description: d\nmaxIterations: 3", true],
    ["command", "description: d\ndisallowed_tools: Bash", true],
  ];
  it.each(cases)("%s: %j flagged: %s", (surface, frontmatter, flagged) => {
    const file = {
      main: "agent.md",
      agent: "agents/a.md",
      skill: "skills/pdf-tools/SKILL.md",
      command: "commands/c.md",
    }[surface];
    const found = {
      file: path.join("/p", file),
      surface,
      root: "/p",
      base: path.join("/p", path.dirname(file)),
    };
    const text = `---\n${frontmatter}\n---\nBody.\n`;
    const codes = loadDefinitionFile(found, { text, known }).diagnostics.map((d) => d.code);
    expect(
      codes.some((c) => FLAGGED.has(c)),
      codes.join(", "),
    ).toBe(flagged);
    const fm = readFrontmatter(text, new DiagnosticSink(found.file, surface));
    const value = Object.fromEntries(fm.fields.map((f) => [f.key, f.value]));
    expect(validators[surface](value), JSON.stringify(validators[surface].errors)).toBe(!flagged);
  });

  it("on every definition file of this repository, its fixtures and the corpus sample", () => {
    const { found } = discoverPaths(
      ["test/fixtures", "agent.md", "agents", "skills", "commands"].map((p) => path.join(REPO_ROOT, p)),
    );
    expect(found.length).toBeGreaterThan(50);
    let compared = 0;
    for (const d of found) {
      const loaded = loadDefinitionFile(d, { known });
      const codes = new Set(loaded.diagnostics.map((x) => x.code));
      const value = frontmatterOf(d.file, d.surface);
      if (value === undefined || [...codes].some((c) => EITHER.has(c))) continue;
      const flagged = [...codes].some((c) => FLAGGED.has(c));
      const where = `${path.relative(REPO_ROOT, d.file)}: ${[...codes].join(", ")} ${JSON.stringify(validators[d.surface].errors)}`;
      if (flagged || loaded.outcome === "loaded") {
        expect(validators[d.surface](value), where).toBe(!flagged);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it("settings: the keys agentmd reads, Claude Code's it ignores, and nothing else", () => {
    const validate = compile(settingsEditorSchema());
    const ok = {
      $schema: "../node_modules/agentmd/schemas/settings.json",
      permissions: {
        allow: ["Bash(npm test:*)"],
        deny: ["Read(//etc/**)"],
        ask: ["Bash(git push:*)"],
        defaultMode: "acceptEdits",
        additionalDirectories: ["../shared"],
      },
      env: { NODE_ENV: "test" },
      hooks: {
        PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "npx prettier" }] }],
      },
      model: "opus",
      statusLine: { type: "command", command: "x" },
    };
    expect(validate(ok), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [
      { permisions: {} },
      { permissions: { denny: [] } },
      { permissions: { defaultMode: "yolo" } },
      { permissions: { allow: "Read" } },
      { env: { N: 1 } },
      { hooks: { posttooluse: [] } },
    ])
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe("docs/formats.md", () => {
  const doc = read("docs/formats.md");

  it("holds the key tables the generator makes (after changing KEY_DOCS, run npm run build)", () => {
    expect(doc).toBe(withKeyReference(doc));
    expect(doc).toContain(keyReference());
  });

  it("names every key of every surface, and every key accepted and ignored", () => {
    for (const key of [...SURFACES.flatMap((s) => [...knownKeys(s)]), ...FOREIGN_KEYS])
      expect(doc, key).toContain(`\`${key}\``);
  });

  it("lists every diagnostic code the source can report, and no other", () => {
    const section = doc.slice(doc.indexOf("## What agentmd reports"));
    const documented = new Set(
      [...section.matchAll(/^\| `([a-z0-9-]+)` \| (?:error|warning|info)/gm)].map((m) => m[1] as string),
    );
    const inSource = diagnosticCodes();
    expect([...inSource].filter((c) => !documented.has(c)).sort(), "codes missing from docs").toEqual([]);
    expect([...documented].filter((c) => !inSource.has(c)).sort(), "codes that do not exist").toEqual([]);
  });
});

/**
 * Every diagnostic code written in src/: the second argument after a severity (`sink.add("error",
 * "code", …)`, `report("warning", "code", …)`, `near ? "error" : "warning", "code"`), a `code:` or
 * `code =` assignment, and discover.ts's `report(file, "code", …)`.
 */
function diagnosticCodes(): Set<string> {
  const codes = new Set<string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
    );
  for (const file of walk(path.join(REPO_ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?<!\[)"(?:error|warning|info)"\s*\)?\s*,\s*"([a-z][a-z0-9-]*)"/g))
      codes.add(m[1] as string);
    for (const m of text.matchAll(/\bcode(?::|\s*=)\s*([^;,\n]+)/g))
      for (const s of (m[1] as string).matchAll(/"([a-z][a-z0-9]*(?:-[a-z0-9]+)+)"/g))
        codes.add(s[1] as string);
    for (const m of text.matchAll(/\breport\(\s*\w+,\s*"([a-z][a-z0-9-]*)"/g)) codes.add(m[1] as string);
  }
  return codes;
}

describe("the reference pages", () => {
  const pages = ["README.md", "docs/formats.md", "docs/permissions.md", "docs/hooks.md", "docs/settings.md"];

  it("link only to files of the repository that exist", () => {
    for (const page of pages) {
      for (const m of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const resolved = path.resolve(path.dirname(path.join(REPO_ROOT, page)), target);
        expect(resolved.startsWith(`${REPO_ROOT}${path.sep}`), `${page} → ${target}`).toBe(true);
        expect(existsSync(resolved), `${page} → ${target}`).toBe(true);
      }
    }
  });

  it("docs/settings.md names every settings key agentmd reads or ignores, and every mode", () => {
    const doc = read("docs/settings.md");
    for (const key of [...IGNORED_SETTINGS_KEYS, ...PERMISSION_KEYS, ...PERMISSION_MODES, "env", "hooks"])
      expect(doc.includes(`\`${key}\``) || doc.includes(`\`permissions.${key}\``), key).toBe(true);
  });

  it("docs/hooks.md names every hook event, run or not", () => {
    const doc = read("docs/hooks.md");
    for (const event of [...HOOK_EVENTS, ...FOREIGN_HOOK_EVENTS])
      expect(doc, event).toContain(`\`${event}\``);
  });

  it("docs/permissions.md names every tool the permission engine judges", () => {
    const doc = read("docs/permissions.md");
    for (const name of builtinCatalog().specs.keys()) expect(doc, name).toContain(`\`${name}\``);
  });

  it("the README points editors at every schema", () => {
    const readme = read("README.md");
    for (const file of [...Object.values(SCHEMA_FILES), "settings.json"])
      expect(readme.includes(`schemas/${file}`), file).toBe(true);
  });
});
