// Writes the editor schemas (schemas/*.json) and the key tables of docs/formats.md from the schemas
// the loader validates with and the key descriptions beside them (src/definitions/key-docs.ts).
// Both are committed; test/definitions/editor-schemas.test.ts regenerates them and compares.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { editorSchemaFiles } = await import("../dist/definitions/editor-schemas.js");
const { withKeyReference } = await import("../dist/definitions/key-reference.js");

const root = fileURLToPath(new URL("..", import.meta.url));
const changed = [];
const write = (rel, text) => {
  const file = `${root}${rel}`;
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  writeFileSync(file, text);
  changed.push(rel);
};
mkdirSync(`${root}schemas`, { recursive: true });
const files = editorSchemaFiles();
for (const [name, text] of Object.entries(files)) write(`schemas/${name}`, text);
const formats = `${root}docs/formats.md`;
if (existsSync(formats)) write("docs/formats.md", withKeyReference(readFileSync(formats, "utf8")));
console.log(
  `${Object.keys(files).length} editor schemas${changed.length ? `; updated ${changed.join(", ")}` : ", unchanged"}`,
);
