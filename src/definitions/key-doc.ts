import type { Surface } from "./types.js";

/**
 * What each frontmatter key does, written once: the editor schemas (`schemas/*.json`) take their
 * `title` and `description` from here, and the key tables of docs/formats.md are generated from it.
 * Plain text with `code` in backticks; defaults come from shared/defaults.ts, the constants the runner uses.
 */
export interface KeyDoc {
  /** A few words: the JSON Schema `title`. */
  readonly title: string;
  /** What the key does on every surface that accepts it, unless `on` says otherwise there. */
  readonly description?: string;
  /** The default, as a reader would say it; absent when there is none to speak of. */
  readonly default?: string;
  /** Where a key means something else on one surface: that surface's description and default. */
  readonly on?: Partial<Record<Surface, { readonly description: string; readonly default?: string }>>;
  /** How the value is written, where the schema's own type says too little (`tool list`). */
  readonly type?: string;
}
