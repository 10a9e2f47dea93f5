import type { CodeItem } from "./code-item.js";
import { type Inventory, projectInventory } from "./inventory/inventory.js";
import { readTrust } from "./trust-store.js";

/** What changed in a folder's code since it was trusted. */
export interface CodeChanges {
  readonly added: readonly CodeItem[];
  readonly removed: readonly CodeItem[];
  /** The same item (a module's path, a server's name) with other content: the item as it is now. */
  readonly changed: readonly CodeItem[];
}

/**
 * Whether a folder's code may run: `none` (only markdown and lists: nothing to trust), `trusted`
 * (the code is exactly what was reviewed), or `untrusted` — never reviewed, or reviewed as other
 * code (`changes` then names what differs).
 */
export type TrustState =
  | { readonly kind: "none"; readonly code: Inventory }
  | { readonly kind: "trusted"; readonly code: Inventory }
  | { readonly kind: "untrusted"; readonly code: Inventory; readonly changes?: CodeChanges };

/**
 * The trust of the project at `projectDir`, from the trust file of `home` (the home folder of the
 * environment agentmd was started with). Reads files; runs nothing. Contract: never throws.
 */
export function trustState(projectDir: string, home: string): TrustState {
  const code = projectInventory(projectDir, home);
  if (code.items.length === 0) return { kind: "none", code };
  const entry = readTrust(home).folders[code.dir];
  if (entry?.digest === code.digest) return { kind: "trusted", code };
  return { kind: "untrusted", code, ...(entry && { changes: codeChanges(entry.items, code.items) }) };
}

/** Item by item on their ids: what `now` adds, lacks and holds with other content. Pure. */
export function codeChanges(before: readonly CodeItem[], now: readonly CodeItem[]): CodeChanges {
  const old = new Map(before.map((i) => [i.id, i]));
  const ids = new Set(now.map((i) => i.id));
  return {
    added: now.filter((i) => !old.has(i.id)),
    removed: before.filter((i) => !ids.has(i.id)),
    changed: now.filter((i) => {
      const o = old.get(i.id);
      return o !== undefined && o.hash !== i.hash;
    }),
  };
}
