import { readFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../shared/is-inside.js";

/**
 * Package-manager scripts: `npm run X`, `npm test`, `npm start`, `pnpm X`, `yarn X`, `bun run X`,
 * and `npm install` (its lifecycle scripts). The package.json found from where the command runs
 * (or its `--prefix`/`-C`/`--dir`/`--cwd`), and the commands of the scripts it would run, with
 * their `pre` and `post` scripts. Reads files; runs nothing.
 */
export interface PackageScripts {
  readonly file: string;
  readonly commands: readonly { readonly name: string; readonly command: string }[];
}

const MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** Subcommands that run a script of the same name. */
const SCRIPT_ALIASES: Readonly<Record<string, string>> = {
  test: "test",
  t: "test",
  tst: "test",
  start: "start",
  stop: "stop",
  restart: "restart",
};
const INSTALL = new Set(["install", "i", "ci", "add", "rebuild", "pack", "publish"]);
const LIFECYCLE = [
  "preinstall",
  "install",
  "postinstall",
  "prepublish",
  "preprepare",
  "prepare",
  "postprepare",
];
/** pnpm, yarn and bun run a script by its bare name unless it is one of their commands. */
const OWN_COMMANDS = new Set(
  "add audit bin cache config create dedupe dlx exec info init install link list login logout outdated pack patch publish rebuild remove store unlink update upgrade why workspace workspaces x".split(
    " ",
  ),
);
const DIR_FLAGS = new Set(["--prefix", "-C", "--dir", "--cwd"]);

export function packageScripts(
  words: readonly string[],
  cwds: readonly string[],
  roots: readonly string[],
): PackageScripts | undefined {
  const manager = path.basename(words[0] ?? "");
  if (!MANAGERS.has(manager)) return undefined;
  let dir: string | undefined;
  const rest: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string;
    if (w === "--") break;
    if (DIR_FLAGS.has(w)) dir = words[++i];
    else if (/^--(?:prefix|dir|cwd)=/.test(w)) dir = w.slice(w.indexOf("=") + 1);
    else if (!w.startsWith("-")) rest.push(w);
  }
  const names = scriptNames(manager, rest);
  if (names.length === 0) return undefined;
  const file = packageJson(dir, cwds, roots);
  if (file === undefined) return undefined;
  const scripts = scriptsOf(file);
  const commands = names
    .flatMap((n) => (LIFECYCLE.includes(n) || n.startsWith("pre") ? [n] : [`pre${n}`, n, `post${n}`]))
    .flatMap((n) => (typeof scripts[n] === "string" ? [{ name: n, command: scripts[n] as string }] : []));
  return { file, commands };
}

/** The scripts a manager's subcommand runs. */
function scriptNames(manager: string, rest: readonly string[]): string[] {
  const [sub, target] = rest;
  if (sub === undefined) return manager === "npm" ? [] : LIFECYCLE; // a bare `yarn`/`pnpm` installs
  if (sub === "run" || sub === "run-script" || sub === "rum" || sub === "urn")
    return target === undefined ? [] : [target];
  if (INSTALL.has(sub)) return LIFECYCLE;
  const alias = SCRIPT_ALIASES[sub];
  if (alias) return [alias];
  if (manager !== "npm" && !OWN_COMMANDS.has(sub)) return [sub];
  return [];
}

/** The package.json of the command's folder, or the nearest above it within the roots. */
function packageJson(dir: string | undefined, cwds: readonly string[], roots: readonly string[]) {
  for (const cwd of cwds) {
    let at = path.resolve(cwd, dir ?? ".");
    while (roots.some((r) => at === r || isInside(at, r))) {
      const file = path.join(at, "package.json");
      if (Object.keys(scriptsOf(file)).length > 0 || readable(file)) return file;
      const up = path.dirname(at);
      if (up === at) break;
      at = up;
    }
  }
  return undefined;
}

function scriptsOf(file: string): Record<string, unknown> {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as { scripts?: unknown };
    return typeof v.scripts === "object" && v.scripts !== null ? (v.scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function readable(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}
