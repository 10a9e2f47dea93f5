import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { isOwnSecret } from "../../shared/own-secrets.js";

/** The program that opens an address in the user's browser here, if the system has one. */
const OPENER = process.platform === "darwin" ? "open" : process.platform === "win32" ? undefined : "xdg-open";

/**
 * Opens `url` in the user's browser when the system has a way to (`xdg-open`, or `open` on macOS,
 * found on the PATH): started and let go, its output ignored. Never throws and never waits: with
 * no opener, or one that fails, the address the caller printed is the way.
 */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): void {
  const program = OPENER && onPath(OPENER, env.PATH ?? "");
  if (!program) return;
  try {
    const childEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !isOwnSecret(k)));
    const child = spawn(program, [url], { detached: true, stdio: "ignore", env: childEnv });
    child.on("error", () => {});
    child.unref();
  } catch {
    // no browser then
  }
}

function onPath(program: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}
