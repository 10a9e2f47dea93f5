import path from "node:path";
import type { ProjectTrust } from "../../src/invocation/open-project.js";
import { projectInventory } from "../../src/trust/inventory/inventory.js";
import { recordTrust } from "../../src/trust/trust-store.js";

/**
 * Trusts the project at `dir` as its code is now, in the trust file of `home`, as `agentmd trust
 * --yes` would: for tests whose subject is what a trusted project's hooks, servers and tools do.
 * Call it after the project's files are written (a later change to its code untrusts it again).
 * Returns `dir`.
 */
export function trustProject(dir: string, home: string = path.join(dir, "home")): string {
  recordTrust(home, projectInventory(dir, home));
  return dir;
}

/** A `ProjectTrust` for `openProject` that trusts whatever it is asked about, in the trust file of `home`. */
export function trustingAll(home: string): ProjectTrust {
  return { home, onUntrusted: () => "trust" };
}
