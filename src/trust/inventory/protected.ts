import path from "node:path";
import { Follower } from "./follow.js";
import type { Inventory, ProtectedPath } from "./inventory-of.js";

/**
 * The protected paths of a run of the project: the inventory's, and the files the run's other hooks
 * (the user's own, those given in code) name, followed the same way. Each also under `projectDir`
 * as given when the inventory's folder is its real path (a path is judged both ways).
 */
export function protectedPaths(
  inventory: Inventory,
  projectDir: string,
  hookCommands: readonly string[],
): ProtectedPath[] {
  const follow = new Follower(inventory.dir);
  for (const command of hookCommands)
    follow.command(command, {
      cwds: [inventory.dir],
      known: follow.known(inventory.dir),
      by: "a hook of the run",
    });
  const out = [...inventory.protected];
  const have = new Set(out.map((p) => p.path));
  for (const [file, why] of follow.files)
    if (!have.has(file)) out.push({ path: file, folder: false, why: `it is code: ${why}` });
  const given = path.resolve(projectDir);
  if (given === inventory.dir) return out;
  const moved = out.flatMap((p) =>
    p.path === inventory.dir || p.path.startsWith(`${inventory.dir}${path.sep}`)
      ? [{ ...p, path: given + p.path.slice(inventory.dir.length) }]
      : [],
  );
  return [...out, ...moved];
}
