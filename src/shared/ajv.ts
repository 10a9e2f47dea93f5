import { createRequire } from "node:module";
import type { Ajv, Options } from "ajv";

type AjvModule = typeof import("ajv");
let loaded: AjvModule | undefined;

/**
 * A new ajv instance, ajv itself loaded with the first: evaluating its modules costs start-up tens
 * of milliseconds, and most commands compile no schema (`check` reads the precompiled validators).
 * In the bundle, esbuild makes `require("ajv")` a call of the copy it carries; run from the
 * sources, ajv is read from node_modules.
 */
export function newAjv(options: Options): Ajv {
  loaded ??= (
    typeof require === "function" ? require("ajv") : createRequire(import.meta.url)("ajv")
  ) as AjvModule;
  return new loaded.Ajv(options);
}
